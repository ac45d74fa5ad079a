import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findApiKeysOfShop, revokeApiKeyRow } from "~/data/api-key-rows.server";
import { database } from "~/data/database.server";
import { findShopByDomain } from "~/services/shops/shops.server";
import { DEMO_SHOP_DOMAIN, seedDemoShop } from "~/services/demo/demo-shop.server";
import { findActiveKeyBySecret } from "~/services/keys/api-keys.server";
import { hashKey } from "~/services/keys/key-secrets";

const demoShop = async () => (await findShopByDomain(DEMO_SHOP_DOMAIN))!;

const dir = mkdtempSync(path.join(tmpdir(), "demo-shop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("demo shop seed", () => {
  it("creates the shop and a working private key, writes them to the file, and is idempotent", async () => {
    const file = path.join(dir, "demo-shop.json");
    const first = await seedDemoShop({ appUrl: "http://localhost:3000", file });
    expect(first).toMatchObject({
      shopDomain: DEMO_SHOP_DOMAIN,
      apiBaseUrl: "http://localhost:3000/v1",
      privateKey: expect.stringMatching(/^svc_sk_[A-Za-z0-9]{32}$/),
      publicKey: expect.stringMatching(/^svc_pk_[A-Za-z0-9]{24}$/),
    });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(first);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const shop = await demoShop();
    expect(shop.publicKey).toBe(first.publicKey);
    expect(await findActiveKeyBySecret({ shopId: shop.id, secret: first.privateKey })).not.toBeNull();
    // Only the hash is stored.
    const [stored] = await findApiKeysOfShop(database(), shop.id);
    expect(stored!.hash).toBe(hashKey(first.privateKey));
    expect(JSON.stringify(stored)).not.toContain(first.privateKey);

    const second = await seedDemoShop({ appUrl: "http://localhost:3000", file });
    expect(second).toEqual(first);
    expect(await database().selectFrom("Shop").select("id").where("domain", "=", DEMO_SHOP_DOMAIN).execute()).toEqual([
      { id: shop.id },
    ]);
    expect(await findApiKeysOfShop(database(), shop.id)).toHaveLength(1);
  });

  it("issues a new key when the recorded one is lost or revoked, keeping the shop", async () => {
    const file = path.join(dir, "again.json");
    const first = await seedDemoShop({ appUrl: "http://localhost:3000", file });
    const firstKey = await findActiveKeyBySecret({ shopId: (await demoShop()).id, secret: first.privateKey });
    await revokeApiKeyRow(database(), firstKey!.shopId, firstKey!.id, new Date());
    const second = await seedDemoShop({ appUrl: "http://localhost:3000", file });
    expect(second.privateKey).not.toBe(first.privateKey);
    expect(second.publicKey).toBe(first.publicKey);
    const shop = await demoShop();
    expect(await findActiveKeyBySecret({ shopId: shop.id, secret: second.privateKey })).not.toBeNull();
  });
});
