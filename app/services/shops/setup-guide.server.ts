/**
 * The setup guide of the admin's Home page: which of the merchant's first steps are done. The app embed
 * step is read from the platform (embed-status.server.ts); the others from the shop's own rows.
 */
import { database } from "~/data/database.server";
import { confirmSharePage as confirmSharePageRow, findShopById } from "~/data/shop-rows.server";
import { DomainError } from "~/lib/domain-error";
import { listApiKeys } from "~/services/keys/api-keys.server";
import { DEFAULT_SHOP_SETTINGS, readShopSettings } from "./settings";

export async function getSetupGuide({ shopId }: { shopId: string }) {
  const [shop, keys] = await Promise.all([findShopById(database(), shopId), listApiKeys({ shopId })]);
  if (!shop) throw new DomainError("not_found", "The shop does not exist.");
  const { sharePath } = readShopSettings(shop.settings);
  return {
    sharePage: {
      sharePath,
      // A path of the merchant's own is a choice made; the default one counts once they said it is right.
      done: sharePath !== DEFAULT_SHOP_SETTINGS.sharePath || shop.sharePageConfirmedAt !== null,
      confirmed: shop.sharePageConfirmedAt !== null,
    },
    headlessKey: { done: keys.some((key) => key.revokedAt === null) },
  };
}

/** The merchant keeps the share page at its path (the default one, usually): the step is done. */
export async function confirmSharePage({ shopId }: { shopId: string }): Promise<void> {
  await confirmSharePageRow(database(), shopId, new Date());
}
