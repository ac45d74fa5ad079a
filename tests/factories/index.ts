import { randomBytes, randomUUID } from "node:crypto";
import { prisma } from "~/db.server";
import { newId } from "~/lib/ids";
import { createApiKey } from "~/services/keys/keys.server";
import { ensureShop } from "~/services/shops/shops.server";

/** Test data built through the same services the app uses. */
export async function createShop(domain = `shop-${randomBytes(4).toString("hex")}.myshopify.com`) {
  return ensureShop({ domain });
}

export async function createShopWithKey(label = "test key") {
  const shop = await createShop();
  const { key, secret } = await createApiKey({ shopId: shop.id, label });
  return { shop, key, secret };
}

export async function createList(
  shopId: string,
  owner: { customerId: string } | { anonymousId: string } = { anonymousId: randomUUID() },
  data: { isDefault?: true | null; name?: string } = {},
) {
  return prisma.list.create({ data: { id: newId("list"), shopId, ...owner, ...data } });
}
