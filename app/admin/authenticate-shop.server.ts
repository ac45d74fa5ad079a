/**
 * The admin pages' edge: who is asking and for which shop. Every admin loader and action starts with
 * `authenticateShop(request)` (the platform library's embedded auth: a session token from App Bridge),
 * then calls services with the shop id, exactly as the /v1 API does after resolving its credential.
 */
import { authenticate } from "~/shopify.server";
import { ensureShop } from "~/services/shops/shops.server";

type PlatformBilling = Awaited<ReturnType<typeof authenticate.admin>>["billing"];

export interface AdminShop {
  shopId: string;
  shopDomain: string;
  /** The platform library's billing calls for this shop (the Plan page's). */
  billing: PlatformBilling;
}

export async function authenticateShop(request: Request): Promise<AdminShop> {
  const { session, billing } = await authenticate.admin(request);
  // The shop row exists from install (afterAuth); ensureShop also covers a shop whose session predates it.
  const shop = await ensureShop({ domain: session.shop });
  return { shopId: shop.id, shopDomain: shop.domain, billing };
}
