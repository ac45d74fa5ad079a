/**
 * Development and tests only: the platform library reaches each shop at `https://<shop>.myshopify.com`
 * (the OAuth token exchange at `/admin/oauth/access_token`), an address this machine cannot reach. When
 * SHOPIFY_ADMIN_API_ORIGIN points at the local platform stand-in (production refuses that setting), the
 * process's fetch sends those requests there instead: the library's own code runs unchanged, only the
 * network route differs (docs/decisions/020-compliance-and-lifecycle.md, "Reinstall").
 */
import { Agent, setGlobalDispatcher } from "undici";
import { getEnv } from "~/env.server";

const SHOP_ORIGIN = /^https:\/\/[a-z0-9][a-z0-9-]*\.myshopify\.com(?::443)?$/;

let installed = false;

/** Installs the route once per process; a no-op in production. */
export function routeShopOriginsToStandIn(): void {
  if (installed || getEnv().NODE_ENV === "production") return;
  installed = true;
  const agent = new Agent().compose((dispatch) => (options, handler) => {
    // Read per request: a test points the app at a stand-in of its own after this module loaded.
    const standIn = getEnv().SHOPIFY_ADMIN_API_ORIGIN;
    const route = standIn && SHOP_ORIGIN.test(String(options.origin ?? ""));
    return dispatch(route ? { ...options, origin: standIn } : options, handler);
  });
  setGlobalDispatcher(agent);
}
