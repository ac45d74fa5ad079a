import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  findActiveApiKeyByHash,
  findApiKeyById,
  findApiKeyForAuth,
  findApiKeysOfShop,
  insertApiKey,
  revokeApiKeyRow,
  touchApiKeyRow,
} from "~/data/api-key-rows.server";
import { database, engine, isUniqueViolation } from "~/data/database.server";
import { markUninstalled, upsertShop } from "~/data/shop-rows.server";
import { newId } from "~/lib/ids";

/** ApiKey statements on both engines: the hash's uniqueness, shop scoping, revocation once, timestamps. */
async function newShop() {
  const shop = {
    id: newId("shop"),
    domain: `keys-${randomBytes(4).toString("hex")}.myshopify.com`,
    publicKey: `svc_pk_${randomBytes(12).toString("hex")}`,
    settings: "{}",
  };
  return upsertShop(database(), shop, new Date());
}

const keyValues = (shopId: string, label = "k") => ({
  id: newId("apiKey"),
  shopId,
  label,
  kind: "private",
  hash: randomBytes(32).toString("hex"),
  hint: "abcd",
});

describe(`api key rows (${engine()})`, () => {
  it("inserts a key as given, createdAt to the millisecond, not used and not revoked", async () => {
    const shop = await newShop();
    const at = new Date("2026-02-03T04:05:06.789Z");
    const values = keyValues(shop.id);
    const row = await insertApiKey(database(), values, at);
    expect(row).toEqual({ ...values, lastUsedAt: null, revokedAt: null, createdAt: at });
    expect((await findApiKeyById(database(), shop.id, values.id))?.createdAt.toISOString()).toBe(
      "2026-02-03T04:05:06.789Z",
    );
  });

  it("refuses a second key with the same hash, in any shop", async () => {
    const [a, b] = [await newShop(), await newShop()];
    const first = keyValues(a.id);
    await insertApiKey(database(), first, new Date());
    const error = await insertApiKey(database(), { ...keyValues(b.id), hash: first.hash }, new Date()).catch(
      (thrown: unknown) => thrown,
    );
    expect(isUniqueViolation(error)).toBe(true);
  });

  it("lists a shop's keys newest first and nothing of another shop", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const ids = [];
    for (let index = 0; index < 3; index++)
      ids.push((await insertApiKey(database(), keyValues(shop.id), new Date())).id);
    await insertApiKey(database(), keyValues(other.id), new Date());
    expect((await findApiKeysOfShop(database(), shop.id)).map((key) => key.id)).toEqual([...ids].reverse());
  });

  it("finds a key by id or by hash only in its own shop, and by hash only while active", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const values = keyValues(shop.id);
    await insertApiKey(database(), values, new Date());
    expect(await findApiKeyById(database(), other.id, values.id)).toBeUndefined();
    expect(await findActiveApiKeyByHash(database(), other.id, values.hash)).toBeUndefined();
    expect((await findActiveApiKeyByHash(database(), shop.id, values.hash))?.id).toBe(values.id);
    await revokeApiKeyRow(database(), shop.id, values.id, new Date());
    expect(await findActiveApiKeyByHash(database(), shop.id, values.hash)).toBeUndefined();
  });

  it("revokes once: a second revocation and another shop's revocation change nothing", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const values = keyValues(shop.id);
    await insertApiKey(database(), values, new Date());
    expect(await revokeApiKeyRow(database(), other.id, values.id, new Date())).toBe(false);
    expect((await findApiKeyById(database(), shop.id, values.id))?.revokedAt).toBeNull();
    const at = new Date("2026-07-01T00:00:00.001Z");
    expect(await revokeApiKeyRow(database(), shop.id, values.id, at)).toBe(true);
    expect(await revokeApiKeyRow(database(), shop.id, values.id, new Date())).toBe(false);
    expect((await findApiKeyById(database(), shop.id, values.id))?.revokedAt).toEqual(at);
  });

  it("concurrent revocations: exactly one reports the change", async () => {
    const shop = await newShop();
    const values = keyValues(shop.id);
    await insertApiKey(database(), values, new Date());
    const outcomes = await Promise.all(
      Array.from({ length: 6 }, () => revokeApiKeyRow(database(), shop.id, values.id, new Date())),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
  });

  it("authentication finds the key with its shop by hash, revoked or not, and the shop's uninstall", async () => {
    const shop = await newShop();
    const values = keyValues(shop.id);
    await insertApiKey(database(), values, new Date());
    expect(await findApiKeyForAuth(database(), values.hash)).toEqual({
      id: values.id,
      revokedAt: null,
      shopId: shop.id,
      shopDomain: shop.domain,
      shopUninstalledAt: null,
    });
    const at = new Date("2026-08-09T10:11:12.013Z");
    await markUninstalled(database(), shop.domain, at, null);
    await revokeApiKeyRow(database(), shop.id, values.id, at);
    expect(await findApiKeyForAuth(database(), values.hash)).toMatchObject({ revokedAt: at, shopUninstalledAt: at });
    expect(await findApiKeyForAuth(database(), "0".repeat(64))).toBeUndefined();
  });

  it("records the last use in the key's shop only", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const values = keyValues(shop.id);
    await insertApiKey(database(), values, new Date());
    await touchApiKeyRow(database(), other.id, values.id, new Date());
    expect((await findApiKeyById(database(), shop.id, values.id))?.lastUsedAt).toBeNull();
    const at = new Date("2026-09-10T11:12:13.014Z");
    await touchApiKeyRow(database(), shop.id, values.id, at);
    expect((await findApiKeyById(database(), shop.id, values.id))?.lastUsedAt).toEqual(at);
  });
});
