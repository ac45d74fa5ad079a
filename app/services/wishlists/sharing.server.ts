/**
 * Share links (`POST|DELETE /storefront/wishlist/share` and `GET /storefront/lists/{shareToken}` in
 * docs/openapi.json): a shop that allows sharing (`shareEnabled` in its settings) lets an owner create one
 * link to their default list; the token alone opens it. A shop that does not is refused
 * (`sharing_disabled`), whoever asks. The owner may turn the link off at any time
 * (docs/decisions/021-retention-and-share-off.md).
 */
import { randomBytes } from "node:crypto";
import { database, transaction, type UnitOfWork } from "~/data/database.server";
import { findItemsOfList } from "~/data/item-rows.server";
import {
  enableShareToken,
  findSharedList,
  removeShareToken,
  removeShareTokensOfRetiredLists,
} from "~/data/list-rows.server";
import { DomainError } from "~/lib/domain-error";
import { recordEvent } from "~/services/events/outbox.server";
import type { Owner } from "~/services/owners/owner";
import type { ShopSettings } from "~/services/shops/settings";
import { shopSettingsOf } from "~/services/shops/shops.server";
import { assertGuestWritesAllowed, lockOwnerList } from "./wishlists.server";
import type { ListWithItems } from "./views";

/** Share tokens: 128 random bits, URL-safe; unguessable, since the token alone opens the list. */
function newShareToken(): string {
  return randomBytes(16).toString("base64url");
}

function assertSharingAllowed(settings: Pick<ShopSettings, "shareEnabled">) {
  if (!settings.shareEnabled) {
    throw new DomainError("sharing_disabled", "This shop does not allow wishlist share links.");
  }
}

function shareUrl(domain: string, sharePath: string, token: string): string {
  return `https://${domain}${sharePath}?share=${encodeURIComponent(token)}`;
}

export interface ShareResult {
  listId: string;
  token: string;
  url: string;
  /** false: the list was shared already (same token, no event). */
  created: boolean;
}

/**
 * Creates the share link of the owner's default list once (emitting list.shared), or returns the existing
 * one. The list is locked, so parallel requests create one token and one event. A guest's list is shared
 * only where guests may keep lists.
 */
export async function shareWishlist(
  { shopId, owner, listId }: { shopId: string; owner: Owner; listId?: string },
  unit?: UnitOfWork<ShareResult>,
): Promise<ShareResult> {
  const { domain, settings } = await shopSettingsOf(shopId);
  assertGuestWritesAllowed(owner, settings);
  assertSharingAllowed(settings);
  return transaction(async (tx) => {
    const at = new Date();
    const list = (await lockOwnerList(tx, shopId, owner, listId, true, at))!;
    let result: ShareResult;
    if (list.shareToken && list.shareEnabled) {
      const url = shareUrl(domain, settings.sharePath, list.shareToken);
      result = { listId: list.id, token: list.shareToken, url, created: false };
    } else {
      const token = list.shareToken ?? newShareToken();
      await enableShareToken(tx, shopId, list.id, token, at);
      const url = shareUrl(domain, settings.sharePath, token);
      if (!list.shareToken) {
        await recordEvent(tx, {
          shopId,
          type: "list.shared",
          createdAt: at,
          data: { listId: list.id, shareToken: token, url },
        });
      }
      result = { listId: list.id, token, url, created: true };
    }
    await unit?.within?.(tx, result);
    return result;
  });
}

/**
 * Turns the owner's share link off: the token of their default list is deleted, and, for a customer, the
 * tokens that guest lists merged into theirs kept (merge.server.ts), so every link that opened the list
 * answers as an unknown token from now on. Sharing again makes a new token (and a list.shared event, as
 * any new link). Turning off a link that is not there changes nothing. It emits no event: the contract has
 * none for it, and list.shared keeps meaning that a link was created.
 *
 * Allowed whatever the shop's settings: a shopper can always withdraw a link, also while the shop has
 * sharing off (turning it back on would otherwise revive the link) or keeps lists for customers only.
 * The default list is locked, as `shareWishlist` and the merge lock it: a share or a merge in flight and
 * this change apply one after the other.
 */
export async function stopSharingWishlist({
  shopId,
  owner,
  listId,
}: {
  shopId: string;
  owner: Owner;
  /** One of the owner's named lists; absent: their default list (and the links guests' lists left to it). */
  listId?: string;
}): Promise<{
  removed: number;
}> {
  return transaction(async (tx) => {
    const at = new Date();
    const list = await lockOwnerList(tx, shopId, owner, listId, false, at);
    let removed = list && (await removeShareToken(tx, shopId, list.id, at)) ? 1 : 0;
    if (owner.kind === "customer" && (listId === undefined || list?.isDefault)) {
      removed += await removeShareTokensOfRetiredLists(tx, shopId, owner.customerId, at);
    }
    return { removed };
  });
}

/**
 * The list behind a share token, in this shop, when the shop and the list both allow sharing. A retired
 * guest list opens nothing: its link ended when the guest logged in (merge.server.ts); lists retired before
 * that rule may still hold a token, which answers as unknown too.
 */
export async function readSharedList({ shopId, token }: { shopId: string; token: string }): Promise<ListWithItems> {
  assertSharingAllowed((await shopSettingsOf(shopId)).settings);
  const db = database();
  const list = await findSharedList(db, shopId, token);
  if (!list || list.retiredAt !== null) throw new DomainError("not_found", "No shared list with this token.");
  const items = await findItemsOfList(db, shopId, list.id);
  return { ...list, items, count: items.length };
}
