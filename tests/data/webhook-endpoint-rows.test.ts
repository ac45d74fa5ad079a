import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database, engine, transaction } from "~/data/database.server";
import { upsertShop } from "~/data/shop-rows.server";
import {
  addFailures,
  countEndpoints,
  deleteEndpoint,
  enableEndpoint,
  findEnabledEndpointsOfShops,
  findEndpoint,
  findEndpointForDelivery,
  findEndpointsNotSealedWith,
  insertEndpoint,
  listEndpoints,
  lockShopEndpoints,
  replaceSealedSecret,
  resetFailCounts,
} from "~/data/webhook-endpoint-rows.server";
import { newId } from "~/lib/ids";
import { setEndpointHealth } from "../support/webhook-rows";

/** Webhook endpoint statements on both engines: tenant scoping, failure counting, the sealed secret swap. */
async function newShop() {
  const shop = {
    id: newId("shop"),
    domain: `endpoints-${randomBytes(4).toString("hex")}.myshopify.com`,
    publicKey: `svc_pk_${randomBytes(12).toString("hex")}`,
    settings: "{}",
  };
  return upsertShop(database(), shop, new Date());
}

function addEndpoint(shopId: string, at = new Date(), secretCiphertext = "v2.k.sealed") {
  return insertEndpoint(
    database(),
    { id: newId("webhookEndpoint"), shopId, url: "https://r.example/", events: '["item.added"]', secretCiphertext },
    at,
  );
}

const NO_EVENT = { eventId: "evt_none", redactedData: '{"redacted":true}' };

describe(`webhook endpoint rows (${engine()})`, () => {
  it("inserts with the timestamps given, to the millisecond, a zero count and no disabledAt", async () => {
    const shop = await newShop();
    const at = new Date("2026-01-02T03:04:05.678Z");
    const endpoint = await addEndpoint(shop.id, at);
    expect(endpoint).toMatchObject({ shopId: shop.id, failCount: 0, disabledAt: null, createdAt: at, updatedAt: at });
    expect((await findEndpoint(database(), shop.id, endpoint.id))?.createdAt.toISOString()).toBe(
      "2026-01-02T03:04:05.678Z",
    );
  });

  it("finds, lists, counts, enables and deletes within the shop only", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const first = await addEndpoint(shop.id);
    const second = await addEndpoint(shop.id);
    await addEndpoint(other.id);
    expect((await listEndpoints(database(), shop.id)).map((row) => row.id)).toEqual([first.id, second.id]);
    expect(await countEndpoints(database(), shop.id)).toBe(2);
    expect(await findEndpoint(database(), other.id, first.id)).toBeUndefined();
    expect(await findEndpointForDelivery(database(), other.id, first.id, NO_EVENT)).toBeUndefined();
    expect(await enableEndpoint(database(), other.id, first.id, new Date())).toBeUndefined();
    expect(await deleteEndpoint(database(), other.id, first.id)).toBe(false);
    expect(await findEndpoint(database(), shop.id, first.id)).toBeDefined();
    expect(await deleteEndpoint(database(), shop.id, first.id)).toBe(true);
    expect(await deleteEndpoint(database(), shop.id, first.id)).toBe(false);
    expect(await countEndpoints(database(), shop.id)).toBe(1);
  });

  it("re-enabling clears disabledAt and the failure count and sets updatedAt", async () => {
    const shop = await newShop();
    const endpoint = await addEndpoint(shop.id);
    await setEndpointHealth(database(), shop.id, endpoint.id, { failCount: 20, disabledAt: new Date() }, new Date());
    const at = new Date("2026-02-03T04:05:06.789Z");
    expect(await enableEndpoint(database(), shop.id, endpoint.id, at)).toMatchObject({
      failCount: 0,
      disabledAt: null,
      updatedAt: at,
    });
  });

  it("counts consecutive failures and disables at the limit, keeping the first disabledAt", async () => {
    const shop = await newShop();
    const endpoint = await addEndpoint(shop.id);
    const read = async () => (await findEndpoint(database(), shop.id, endpoint.id))!;
    const first = new Date("2026-03-04T05:06:07.001Z");
    await addFailures(database(), endpoint.id, { failures: 3, afterSuccess: false, disableAt: 5 }, first);
    expect(await read()).toMatchObject({ failCount: 3, disabledAt: null, updatedAt: first });
    await addFailures(database(), endpoint.id, { failures: 2, afterSuccess: false, disableAt: 5 }, first);
    expect(await read()).toMatchObject({ failCount: 5, disabledAt: first });
    await addFailures(database(), endpoint.id, { failures: 1, afterSuccess: false, disableAt: 5 }, new Date());
    expect(await read()).toMatchObject({ failCount: 6, disabledAt: first });
  });

  it("after a success in the batch, counts from zero: 2 < 20 stays enabled, 25 disables", async () => {
    const shop = await newShop();
    const endpoint = await addEndpoint(shop.id);
    await setEndpointHealth(database(), shop.id, endpoint.id, { failCount: 19 }, new Date());
    await addFailures(database(), endpoint.id, { failures: 2, afterSuccess: true, disableAt: 20 }, new Date());
    expect(await findEndpoint(database(), shop.id, endpoint.id)).toMatchObject({ failCount: 2, disabledAt: null });
    const at = new Date("2026-03-04T05:06:07.002Z");
    await addFailures(database(), endpoint.id, { failures: 25, afterSuccess: true, disableAt: 20 }, at);
    expect(await findEndpoint(database(), shop.id, endpoint.id)).toMatchObject({ failCount: 25, disabledAt: at });
  });

  it("resets the failure count of the endpoints named, only where it is not zero", async () => {
    const shop = await newShop();
    const [failing, healthy, untouched] = [
      await addEndpoint(shop.id),
      await addEndpoint(shop.id),
      await addEndpoint(shop.id),
    ];
    const before = new Date("2026-01-01T00:00:00.000Z");
    await setEndpointHealth(database(), shop.id, failing.id, { failCount: 4 }, before);
    await setEndpointHealth(database(), shop.id, healthy.id, {}, before);
    await setEndpointHealth(database(), shop.id, untouched.id, { failCount: 7 }, before);
    await resetFailCounts(database(), [failing.id, healthy.id], new Date());
    await resetFailCounts(database(), [], new Date());
    const rows = new Map((await listEndpoints(database(), shop.id)).map((row) => [row.id, row]));
    expect(rows.get(failing.id)?.failCount).toBe(0);
    expect(rows.get(healthy.id)?.updatedAt).toEqual(before); // already 0: not written
    expect(rows.get(untouched.id)?.failCount).toBe(7);
  });

  it("fans out to the enabled endpoints of the shops asked for, with each shop's domain", async () => {
    const [shop, other, third] = [await newShop(), await newShop(), await newShop()];
    const enabled = await addEndpoint(shop.id);
    const disabled = await addEndpoint(shop.id);
    await setEndpointHealth(database(), shop.id, disabled.id, { disabledAt: new Date() }, new Date());
    const others = await addEndpoint(other.id);
    await addEndpoint(third.id);
    const rows = await findEnabledEndpointsOfShops(database(), [shop.id, other.id]);
    expect(rows.map((row) => row.id).sort()).toEqual([enabled.id, others.id].sort());
    expect(rows.find((row) => row.id === enabled.id)).toMatchObject({ shopId: shop.id, shopDomain: shop.domain });
    expect(await findEnabledEndpointsOfShops(database(), [])).toEqual([]);
  });

  it("finds secrets not sealed under a prefix and swaps one only if it is unchanged", async () => {
    const [shop, other] = [await newShop(), await newShop()];
    const stale = await addEndpoint(shop.id, new Date(), `v1.stale-${randomBytes(4).toString("hex")}`);
    const current = await addEndpoint(shop.id, new Date(), "v2.current.x");
    const found = (await findEndpointsNotSealedWith(database(), "v2.current.")).map((row) => row.id);
    expect(found).toContain(stale.id);
    expect(found).not.toContain(current.id);
    expect(
      await replaceSealedSecret(database(), { id: stale.id, shopId: other.id }, stale.secretCiphertext, "new"),
    ).toBe(false);
    expect(await replaceSealedSecret(database(), stale, "something else", "new")).toBe(false);
    expect(await replaceSealedSecret(database(), stale, stale.secretCiphertext, "v2.current.y")).toBe(true);
    expect((await findEndpointForDelivery(database(), shop.id, stale.id, NO_EVENT))?.secretCiphertext).toBe(
      "v2.current.y",
    );
  });

  it("lets concurrent capped creations of one shop count one after another", async () => {
    const shop = await newShop();
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        transaction(async (tx) => {
          await lockShopEndpoints(tx, shop.id);
          if ((await countEndpoints(tx, shop.id)) >= 3) return false;
          await insertEndpoint(
            tx,
            {
              id: newId("webhookEndpoint"),
              shopId: shop.id,
              url: "https://r.example/",
              events: "[]",
              secretCiphertext: "x",
            },
            new Date(),
          );
          return true;
        }),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(3);
    expect(await countEndpoints(database(), shop.id)).toBe(3);
  });
});
