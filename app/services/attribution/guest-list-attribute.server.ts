/**
 * The value of a guest's hidden cart attribute `_wishlist_list` (docs/decisions/053-guest-orders-cart-attribute.md):
 * their default list's id and a tag that only the app can make, `lst_<id>.<tag>`, the tag an HMAC of the shop, the
 * list and the list's anonymous owner. A list id alone is no proof of anything: a shared list shows its id to
 * whoever has the link, and an order naming it would mark that guest's items bought (or remove them). The tag is
 * given only to whoever reads the guest's list with their anonymous id (GET /storefront/wishlist), so an order
 * names a guest list only when its cart was the guest's. Read by the merchant and apps with the order, it unlocks
 * nothing either: it is not the anonymous id, and no id can be worked out from it.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { getEnv } from "~/env.server";
import { deriveKey } from "~/lib/derived-keys.server";

const TAG_BYTES = 16;

function tagOf(secret: string, shopId: string, listId: string, anonymousId: string): Buffer {
  return createHmac("sha256", deriveKey("guest-list-attribute", secret))
    .update(`${shopId}\0${listId}\0${anonymousId}`)
    .digest()
    .subarray(0, TAG_BYTES);
}

/** The attribute's value for the guest's list. */
export function guestListAttribute(shopId: string, listId: string, anonymousId: string): string {
  return `${listId}.${tagOf(getEnv().SERVICE_SECRET, shopId, listId, anonymousId).toString("base64url")}`;
}

/**
 * Whether the tag (order-payloads.ts reads it from the attribute) is the one the app gave for this list of this
 * anonymous owner (under SERVICE_SECRET, or SERVICE_SECRET_PREVIOUS for a cart written before a rotation).
 */
export function isGuestListTag(shopId: string, listId: string, anonymousId: string, tag: string): boolean {
  const given = Buffer.from(tag, "base64url");
  const env = getEnv();
  return [env.SERVICE_SECRET, env.SERVICE_SECRET_PREVIOUS].some((secret) => {
    if (!secret) return false;
    const expected = tagOf(secret, shopId, listId, anonymousId);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
