import { randomBytes } from "node:crypto";
import { prisma } from "~/db.server";
import { AppError } from "~/lib/problems";
import { writeEvent } from "~/services/events/outbox.server";
import { readShopSettings } from "~/services/shops/settings";
import type { Owner } from "./owner";
import { inTransaction, lockDefaultList } from "./wishlists.server";

/** Share tokens: 128 random bits, URL-safe; unguessable, since the token alone opens the list. */
function newShareToken(): string {
  return randomBytes(16).toString("base64url");
}

async function sharingSettings(shopId: string) {
  const shop = await prisma.shop.findUnique({ where: { id: shopId }, select: { domain: true, settings: true } });
  if (!shop) throw new AppError("not-found", { detail: "The shop does not exist." });
  const settings = readShopSettings(shop.settings);
  if (!settings.shareEnabled) {
    throw new AppError("sharing-disabled", { detail: "This shop does not allow wishlist share links." });
  }
  return { domain: shop.domain, sharePath: settings.sharePath };
}

export function shareUrl(domain: string, sharePath: string, token: string): string {
  return `https://${domain}${sharePath}?share=${encodeURIComponent(token)}`;
}

/**
 * Creates the share link of the owner's default list once (emitting list.shared), or returns the existing
 * one. The list is locked, so parallel requests create one token and one event.
 */
export async function shareWishlist({ shopId, owner }: { shopId: string; owner: Owner }) {
  const { domain, sharePath } = await sharingSettings(shopId);
  return inTransaction(async (tx) => {
    const list = (await lockDefaultList(tx, shopId, owner, true))!;
    if (list.shareToken && list.shareEnabled) {
      return {
        listId: list.id,
        token: list.shareToken,
        url: shareUrl(domain, sharePath, list.shareToken),
        created: false,
      };
    }
    const token = list.shareToken ?? newShareToken();
    await tx.list.update({ where: { id: list.id }, data: { shareToken: token, shareEnabled: true } });
    const url = shareUrl(domain, sharePath, token);
    if (!list.shareToken) {
      await writeEvent(tx, { shopId, type: "list.shared", data: { listId: list.id, shareToken: token, url } });
    }
    return { listId: list.id, token, url, created: true };
  });
}

/** The list behind a share token, in this shop, when the shop and the list both allow sharing. */
export async function readSharedList({ shopId, token }: { shopId: string; token: string }) {
  await sharingSettings(shopId);
  const list = await prisma.list.findFirst({
    where: { shopId, shareToken: token, shareEnabled: true, retiredAt: null },
    include: { items: { orderBy: [{ addedAt: "desc" }, { id: "desc" }] } },
  });
  if (!list) throw new AppError("not-found", { detail: "No shared list with this token." });
  return { ...list, count: list.items.length };
}
