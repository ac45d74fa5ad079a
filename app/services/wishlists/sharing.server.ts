import { randomBytes } from "node:crypto";
import { prisma, sql } from "~/db.server";
import { AppError } from "~/lib/problems";
import { insertEvent } from "~/services/events/outbox.server";
import { readShopSettings } from "~/services/shops/settings";
import type { Owner } from "./owner";
import { listFromRow } from "./rows";
import { listItems, lockDefaultList, transaction } from "./wishlists.server";

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
  return transaction(async (tx) => {
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
    await tx.run(`UPDATE "List" SET "shareToken" = ?, "shareEnabled" = TRUE, "updatedAt" = ? WHERE "id" = ?`, [
      token,
      new Date(),
      list.id,
    ]);
    const url = shareUrl(domain, sharePath, token);
    if (!list.shareToken) {
      await insertEvent(tx, { shopId, type: "list.shared", data: { listId: list.id, shareToken: token, url } });
    }
    return { listId: list.id, token, url, created: true };
  });
}

/**
 * The list behind a share token, in this shop, when the shop and the list both allow sharing. The token of a
 * guest list merged at login into a customer's list that had its own token stays on the retired guest list,
 * which then names the customer (merge.server.ts): it opens that customer's current default list.
 */
export async function readSharedList({ shopId, token }: { shopId: string; token: string }) {
  await sharingSettings(shopId);
  const db = sql();
  let row = await db.get<Record<string, unknown>>(
    `SELECT * FROM "List" WHERE "shopId" = ? AND "shareToken" = ? AND "shareEnabled" = TRUE`,
    [shopId, token],
  );
  if (row && row.retiredAt !== null) {
    const customerId = row.customerId as string | null;
    row = customerId
      ? await db.get<Record<string, unknown>>(
          `SELECT * FROM "List" WHERE "shopId" = ? AND "customerId" = ? AND "anonymousId" IS NULL ` +
            `AND "isDefault" = TRUE AND "retiredAt" IS NULL`,
          [shopId, customerId],
        )
      : undefined;
  }
  if (!row) throw new AppError("not-found", { detail: "No shared list with this token." });
  const items = await listItems(db, row.id as string);
  return { ...listFromRow(row), items, count: items.length };
}
