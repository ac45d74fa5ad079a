import { Session } from "@shopify/shopify-api";
import type { ActionFunctionArgs } from "@remix-run/node";
import { describe, expect, it } from "vitest";
import { signSessionToken } from "../../stand-in/session-token";

const { getEnv } = await import("~/env.server");
const { platformSessionStorage } = await import("~/services/shops/platform-sessions.server");
const { createShop } = await import("../factories");
const keys = await import("~/routes/app.keys");
const settings = await import("~/routes/app.settings");
const webhooks = await import("~/routes/app.webhooks._index");

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";

/** A shop installed on the platform (its offline session stored), and requests from its admin. */
async function installedShop() {
  const shop = await createShop();
  const session = new Session({ id: `offline_${shop.domain}`, shop: shop.domain, state: "", isOnline: false });
  session.scope = getEnv().SCOPES;
  session.accessToken = `shpat_${shop.id}`;
  await platformSessionStorage.storeSession(session);
  const post = async (path: string, body: BodyInit, contentType?: string) => {
    const token = await signSessionToken({
      shopDomain: shop.domain,
      apiKey: getEnv().SHOPIFY_API_KEY,
      apiSecret: getEnv().SHOPIFY_API_SECRET,
    });
    const headers = new Headers({ authorization: `Bearer ${token}`, "user-agent": BROWSER });
    if (contentType) headers.set("content-type", contentType);
    return new Request(`${getEnv().SHOPIFY_APP_URL}${path}`, { method: "POST", headers, body });
  };
  return { shop, post };
}

/** What an action answered: its value, or the Response it threw. */
async function run(action: (args: ActionFunctionArgs) => Promise<unknown>, request: Request) {
  try {
    return { value: await action({ request, params: {}, context: {} }) };
  } catch (thrown) {
    if (thrown instanceof Response) return { status: thrown.status };
    throw thrown;
  }
}

/**
 * A body the admin's pages never send (not a form, not JSON, a malformed id) is the client's mistake: a 400
 * or the form's own failure, never an unexpected server error (a 500, with its stack logged) that any
 * merchant could repeat at will.
 */
describe("admin actions given a body their page never sends", () => {
  it("answer 400 to a body that is not a form", async () => {
    const { post } = await installedShop();
    for (const [action, path] of [
      [keys.action, "/app/keys"],
      [webhooks.action, "/app/webhooks?index"],
    ] as const) {
      expect(await run(action, await post(path, '{"label":"x"}', "application/json"))).toEqual({ status: 400 });
      expect(await run(action, await post(path, "%%%", "multipart/form-data; boundary=x"))).toEqual({ status: 400 });
    }
  });

  it("answer 400 to settings that are not JSON", async () => {
    const { post } = await installedShop();
    expect(await run(settings.action, await post("/app/settings", "guestEnabled=on", "application/json"))).toEqual({
      status: 400,
    });
  });

  it("show a malformed key id as the revoke form's failure", async () => {
    const { post } = await installedShop();
    const form = new URLSearchParams({ intent: "revoke", keyId: "whe_01m88b1tkwfzy8w916shjyxx8d" });
    const answer = await run(keys.action, await post("/app/keys", form));
    expect(answer).toEqual({ value: expect.objectContaining({ ok: false, formError: expect.any(String) }) });
  });
});
