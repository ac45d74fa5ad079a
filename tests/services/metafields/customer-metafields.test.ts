import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { markCustomersChanged } from "~/data/metafield-sync-rows.server";
import { newId } from "~/lib/ids";
import { shopsOwingMetafields } from "~/services/metafields/customer-metafields.server";
import { upsertSession } from "~/data/session-rows.server";
import { resetEnvCache } from "~/env.server";
import { demoShopData } from "../../../stand-in/demo-data";
import { createShopWithKey, sessionRow } from "../../factories";
import { rawCall, signedProxyPath } from "../../support/openapi-client";
import {
  standInGraphql,
  startFakeAdminApi,
  throttledAnswer,
  type RecordedCall,
} from "../../../scripts/lib/fake-admin-api";
import { runImport, upload, viaApp } from "../transfers/helpers";
import type { RunningProcess } from "../../support/processes";
import { manualWorkers } from "../../support/worker";
import { until } from "../../support/poll";
import { apiHarness } from "../../support/harness";

// The platform at the network boundary: a recording server on loopback that answers with the stand-in's
// GraphQL engine (so a mutation the platform would refuse is refused), unless a test answers otherwise.
const platform = await startFakeAdminApi();
Object.assign(process.env, {
  SHOPIFY_ADMIN_API_ORIGIN: platform.origin,
  METAFIELD_SYNC_DELAY_MS: "200",
  OUTBOX_RELAY_INTERVAL_MS: "50",
});
resetEnvCache();

const { app, validator, clientFor } = await apiHarness();

const { shop, secret } = await createShopWithKey();
const ACCESS_TOKEN = `shpat_metafields_${shop.id}`;
await upsertSession(database(), sessionRow(shop.domain, `offline_${shop.domain}`, { accessToken: ACCESS_TOKEN }));
const platformShop = demoShopData({ domain: shop.domain, accessToken: ACCESS_TOKEN });
const answerAsPlatform = standInGraphql(platformShop);
platform.answer(answerAsPlatform);
const api = clientFor(secret);
const PRODUCT = (n: number) => String(8_100_000_000 + n);
const SLOT = "$app:wishlist.saved_products";

afterAll(async () => {
  await platform.close();
});

const workers = manualWorkers();
const startWorker = () => workers.start();
const stopWorker = (worker: RunningProcess) => workers.stop(worker);

/** A customer's save or removal through the app proxy, as the theme's heart button sends it. */
const proxy = (customerId: string, method: "POST" | "DELETE", productId: string) =>
  rawCall(
    app,
    validator,
    signedProxyPath("/proxy/v1/storefront/wishlist/items", { shop: shop.domain, logged_in_customer_id: customerId }),
    {
      method,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(method === "POST" ? { productId, handle: `product-${productId}` } : { productId }),
    },
  );

async function save(customerId: string, ...productIds: string[]) {
  for (const productId of productIds) expect((await proxy(customerId, "POST", productId)).status).toBe(201);
}

async function setSync(enabled: boolean) {
  const { response } = await api.PATCH("/shop/settings", { body: { metafieldSyncEnabled: enabled } });
  expect(response.status).toBe(200);
}

const customerGid = (id: string) => `gid://shopify/Customer/${id}`;
const productGids = (...ids: string[]) => JSON.stringify(ids.map((id) => `gid://shopify/Product/${id}`));
/** The metafield's value as the platform holds it for a customer (undefined: none). */
const valueOf = (customerId: string) => platformShop.metafields?.[customerGid(customerId)]?.[SLOT]?.value;

const mutations = (name: string) => platform.calls.filter((call) => call.query.includes(`${name}(`));
/** The metafieldsSet calls that wrote this customer's metafield. */
const writesOf = (customerId: string) =>
  mutations("metafieldsSet").filter((call) =>
    (call.variables.metafields as Array<{ ownerId: string }>).some(
      (input) => input.ownerId === customerGid(customerId),
    ),
  );

const syncRows = () =>
  database().selectFrom("CustomerMetafieldSync").selectAll().where("shopId", "=", shop.id).execute();

/** When the merchant asked for the backfill the worker still owes (null: none owed). */
const backfillOwed = async () =>
  (
    await database()
      .selectFrom("Shop")
      .select("metafieldBackfillAt")
      .where("id", "=", shop.id)
      .executeTakeFirstOrThrow()
  ).metafieldBackfillAt;

const pendingEvents = async () =>
  (
    await database()
      .selectFrom("Event")
      .select("id")
      .where("shopId", "=", shop.id)
      .where("dispatchedAt", "is", null)
      .execute()
  ).length;

describe("customer metafield sync", { timeout: 180_000 }, () => {
  it("writes nothing while the setting is off", async () => {
    const worker = await startWorker();
    await save("7001", PRODUCT(1), PRODUCT(2));
    await until(pendingEvents, (pending) => pending === 0, "the saves relayed");
    await stopWorker(worker);
    expect(await syncRows()).toEqual([]);
    expect(platform.calls.filter((call) => call.query.includes("etafield"))).toEqual([]);
  });

  it("turned on: creates the definition, then writes every customer's saved products, most recent first", async () => {
    // Customer 7002 saved a product and removed it: their list is empty, so a stale metafield is removed.
    const worker = await startWorker();
    await save("7002", PRODUCT(3));
    expect((await proxy("7002", "DELETE", PRODUCT(3))).status).toBe(204);
    await until(pendingEvents, (pending) => pending === 0, "the changes relayed");

    await setSync(true);
    await until(
      () => valueOf("7001"),
      (value) => value !== undefined,
      "7001's metafield written",
    );
    await until(
      () => mutations("metafieldsDelete").length,
      (count) => count > 0,
      "7002's metafield removed",
    );
    await stopWorker(worker);

    expect(valueOf("7001")).toBe(productGids(PRODUCT(2), PRODUCT(1)));
    const [definition] = mutations("metafieldDefinitionCreate");
    expect(definition!.variables).toEqual({
      definition: {
        name: "Wishlist",
        description: expect.any(String),
        namespace: "$app:wishlist",
        key: "saved_products",
        type: "list.product_reference",
        ownerType: "CUSTOMER",
        access: { admin: "MERCHANT_READ", storefront: "PUBLIC_READ", customerAccount: "READ" },
      },
    });
    expect(platformShop.metafieldDefinitions).toHaveLength(1);
    // The definition comes first; the backfill is one call for both customers' changes.
    expect(platform.calls.indexOf(definition!)).toBeLessThan(platform.calls.indexOf(writesOf("7001")[0]!));
    expect(writesOf("7001")).toHaveLength(1);
    expect(writesOf("7001")[0]!.variables).toEqual({
      metafields: [
        {
          ownerId: customerGid("7001"),
          namespace: "$app:wishlist",
          key: "saved_products",
          type: "list.product_reference",
          value: productGids(PRODUCT(2), PRODUCT(1)),
        },
      ],
    });
    expect(mutations("metafieldsDelete")[0]!.variables).toEqual({
      metafields: [{ ownerId: customerGid("7002"), namespace: "$app:wishlist", key: "saved_products" }],
    });
    expect((await syncRows()).every((row) => row.syncedAt !== null && row.error === null)).toBe(true);
    expect(await backfillOwed()).toBeNull();
    // Every call presented the shop's token.
    expect(new Set(platform.calls.map((call) => call.accessToken))).toEqual(new Set([ACCESS_TOKEN]));
  });

  it("a burst of saves by one customer costs one write", async () => {
    // The saves wait in the outbox while no worker runs; the worker then relays them together.
    await save("7003", PRODUCT(4), PRODUCT(5), PRODUCT(6), PRODUCT(7), PRODUCT(8));
    const worker = await startWorker();
    await until(
      () => valueOf("7003"),
      (value) => value === productGids(PRODUCT(8), PRODUCT(7), PRODUCT(6), PRODUCT(5), PRODUCT(4)),
      "7003's metafield holds the five products",
    );
    await stopWorker(worker);
    expect(writesOf("7003")).toHaveLength(1);
  });

  it("honours the platform's throttling and retries a failed call", async () => {
    const answers: Array<(call: RecordedCall) => ReturnType<typeof answerAsPlatform> | object> = [
      // The bucket is empty: the platform asks to wait (50 points missing at 100 per second: 500 ms).
      () => throttledAnswer({ cost: 50, maximum: 1000, restoreRate: 100 }),
      () => ({ status: 503, body: { errors: "Service unavailable" } }),
    ];
    platform.answer((call) => {
      if (call.query.includes("metafieldsSet(") && answers.length > 0) return answers.shift()!(call) as never;
      return answerAsPlatform(call);
    });
    try {
      const worker = await startWorker();
      await save("7004", PRODUCT(9));
      await until(
        () => valueOf("7004"),
        (value) => value === productGids(PRODUCT(9)),
        "7004's metafield written",
      );
      await stopWorker(worker);
    } finally {
      platform.answer(answerAsPlatform);
    }
    const writes = writesOf("7004");
    expect(writes).toHaveLength(3);
    // Lower bounds only: the worker waited at least as long as the platform asked, then backed off after the 503.
    expect(writes[1]!.at - writes[0]!.at).toBeGreaterThanOrEqual(450);
    expect(writes[2]!.at - writes[1]!.at).toBeGreaterThanOrEqual(900);
    expect(writes.map((call) => call.variables)).toEqual([
      writes[2]!.variables,
      writes[2]!.variables,
      writes[2]!.variables,
    ]);
  });

  it("records a customer the shop no longer has and writes the others of the same call", async () => {
    await save("9999", PRODUCT(10));
    await save("7005", PRODUCT(11));
    const worker = await startWorker();
    await until(
      () => valueOf("7005"),
      (value) => value === productGids(PRODUCT(11)),
      "7005's metafield written",
    );
    await until(
      syncRows,
      (rows) => rows.some((row) => row.customerId === "9999" && row.syncedAt !== null),
      "9999's row settled",
    );
    await stopWorker(worker);
    const row = (await syncRows()).find((candidate) => candidate.customerId === "9999");
    expect(row!.error).toBe("Owner does not exist.");
    expect(valueOf("9999")).toBeUndefined();
    // The first call held both and was refused whole (atomic); the second held 7005 alone.
    const owners = (call: RecordedCall) =>
      (call.variables.metafields as Array<{ ownerId: string }>).map((input) => input.ownerId).sort();
    expect(mutations("metafieldsSet").slice(-2).map(owners)).toEqual([
      [customerGid("7005"), customerGid("9999")],
      [customerGid("7005")],
    ]);
  });

  it("an import writes the metafields of the customers it added to", async () => {
    const worker = await startWorker();
    const file = [
      "customer_id,anonymous_id,product_id,variant_id,handle,added_at",
      `7002,,${PRODUCT(12)},,imported-12,2024-01-15T08:00:00.000Z`,
      `7002,,${PRODUCT(11)},,imported-11,2024-01-16T08:00:00.000Z`,
    ].join("\n");
    const target = await upload(api, viaApp(app), file);
    const job = await runImport(api, { source: "csv", fileUrl: target.fileUrl }, 90_000);
    expect(job, JSON.stringify(job)).toMatchObject({ status: "succeeded", imported: 2 });
    await until(
      () => valueOf("7002"),
      (value) => value !== undefined,
      "7002's metafield written",
    );
    await stopWorker(worker);
    // Most recently saved first: the import keeps each row's added_at.
    expect(valueOf("7002")).toBe(productGids(PRODUCT(11), PRODUCT(12)));
  });

  it("two settings changes at once both hold: turning the sync off is never undone by another change", async () => {
    const stored = async () =>
      JSON.parse(
        (await database().selectFrom("Shop").select("settings").where("id", "=", shop.id).executeTakeFirstOrThrow())
          .settings,
      ) as { metafieldSyncEnabled: boolean; guestEnabled: boolean };
    for (let round = 0; round < 10; round++) {
      await api.PATCH("/shop/settings", { body: { metafieldSyncEnabled: true, guestEnabled: true } });
      const answers = await Promise.all([
        api.PATCH("/shop/settings", { body: { metafieldSyncEnabled: false } }),
        api.PATCH("/shop/settings", { body: { guestEnabled: false } }),
      ]);
      expect(answers.map((answer) => answer.response.status)).toEqual([200, 200]);
      expect(await stored(), `round ${round}`).toMatchObject({ metafieldSyncEnabled: false, guestEnabled: false });
      // Turned off, no backfill is owed any more (the worker would otherwise mark every customer).
      expect(await backfillOwed(), `round ${round}`).toBeNull();
    }
    await api.PATCH("/shop/settings", { body: { guestEnabled: true } });
  });

  it("turned off: what was owed is forgotten and nothing more is written", async () => {
    await setSync(true);
    await markCustomersChanged(database(), shop.id, ["7001"], new Date());
    await setSync(false);
    expect(await backfillOwed()).toBeNull();
    // Metafield calls only: the worker also asks the platform for the titles of untitled saves.
    const metafieldCalls = () => platform.calls.filter((call) => call.query.includes("etafield")).length;
    const before = metafieldCalls();
    const worker = await startWorker();
    // The job queued by turning the sync off forgets what was owed.
    await until(syncRows, (rows) => rows.length === 0, "what was owed forgotten");
    await save("7001", PRODUCT(12));
    await until(pendingEvents, (pending) => pending === 0, "the save relayed");
    await stopWorker(worker);
    expect(await syncRows()).toEqual([]);
    expect(metafieldCalls()).toBe(before);
    expect(valueOf("7001")).toBe(productGids(PRODUCT(2), PRODUCT(1)));
  });
  it("turned off while a write waits out the platform's throttling: the write is not sent", async () => {
    let throttled = false;
    platform.answer(async (call) => {
      const forCustomer = writesOf("7006").includes(call);
      if (call.query.includes("metafieldsSet(") && forCustomer && !throttled) {
        throttled = true;
        // The merchant turns the sync off before the platform answers, which asks to wait (100 points
        // missing at 100 a second: 1 s): the job's retry comes after the change, whatever the machine's load.
        await setSync(false);
        return throttledAnswer({ cost: 100, maximum: 1000, restoreRate: 100 });
      }
      return answerAsPlatform(call);
    });
    const worker = await startWorker();
    try {
      await setSync(true);
      await save("7006", PRODUCT(14));
      // The job wakes after the wait, finds the sync off, and forgets what was owed instead of writing.
      await until(
        async () => throttled && (await syncRows()).length === 0,
        (done) => done,
        "7006's write throttled, then what was owed forgotten",
      );
    } finally {
      await stopWorker(worker);
      platform.answer(answerAsPlatform);
    }
    expect(writesOf("7006")).toHaveLength(1);
    expect(valueOf("7006")).toBeUndefined();
  });

  it("turned on for a shop with thousands of customers: the request marks nobody, the worker marks them a page at a time", async () => {
    // 2,500 customers with a list: three pages of the backfill (1,000 each).
    const at = new Date();
    const customers = Array.from({ length: 2_500 }, (_, n) => String(9_000_000 + n));
    for (let start = 0; start < customers.length; start += 250) {
      await database()
        .insertInto("List")
        .values(
          customers
            .slice(start, start + 250)
            .map((customerId) => ({ id: newId("list"), shopId: shop.id, customerId, createdAt: at, updatedAt: at })),
        )
        .execute();
    }
    const owedCount = async () => (await syncRows()).filter((row) => row.syncedAt === null).length;
    expect(await owedCount()).toBe(0);

    await setSync(true);
    // The request only asked for the backfill; with no worker running the sweep would queue the shop.
    const requestedAt = await backfillOwed();
    expect(requestedAt).toBeInstanceOf(Date);
    expect(await owedCount()).toBe(0);
    expect(await shopsOwingMetafields()).toContain(shop.id);

    const worker = await startWorker();
    try {
      await until(backfillOwed, (value) => value === null, "the backfill marked");
      const marked = new Set((await syncRows()).map((row) => row.customerId));
      expect(customers.filter((customerId) => !marked.has(customerId))).toEqual([]);
      // The log line comes after the marker is cleared, and reaches this process through a pipe: polled.
      await until(
        () => worker.output(),
        (output) => /"marked":25\d\d.*metafield sync backfill marked/.test(output),
        "the backfill logged",
      );
      // Turned off again, the job forgets what the backfill owed.
      await setSync(false);
      await until(syncRows, (rows) => rows.length === 0, "the backfill forgotten");
    } finally {
      await stopWorker(worker);
    }
  });
});
