import { randomUUID } from "node:crypto";
import { serve } from "@hono/node-server";
import { readFileSync } from "node:fs";
import path from "node:path";
import { Session } from "@shopify/shopify-api";
import { sql } from "kysely";
import Papa from "papaparse";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { ROOT } from "../../../scripts/lib/databases";
import { signSessionToken } from "../../../stand-in/session-token";
import { demoShopData } from "../../../stand-in/demo-data";
import { startPlatformStandIn } from "../../../stand-in/platform";
import {
  isProductLookup,
  productCatalogue,
  startFakeAdminApi,
  throttledAnswer,
  withProductLookups,
  customerSearch,
  type RecordedCall,
} from "../../../scripts/lib/fake-admin-api";
import { until } from "../../support/poll";

// The platform's Admin GraphQL API at the network boundary, for this process and the worker it starts;
// set before any app module reads the environment.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
afterAll(() => platform.close());

const { getEnv } = await import("~/env.server");
const { database } = await import("~/data/database.server");
const { insertItem } = await import("~/data/item-rows.server");
const { JOBS, MAINTENANCE_QUEUE, sweepJob } = await import("~/jobs/definitions");
const { createQueue } = await import("~/jobs/queues.server");
const { requestProductSnapshots } = await import("~/services/products/snapshots.server");
const { POSTPONE_MS } = await import("~/services/platform/admin-api.server");
const { newId } = await import("~/lib/ids");
const { createList, createShopWithKey } = await import("../../factories");
const { rawCall } = await import("../../support/openapi-client");
const { BASE_URL } = await import("../../support/http");
const { platformWebhook } = await import("../../support/platform-webhooks");
const { useWorker } = await import("../../support/worker");
const { connectToPlatform, runImport, upload, viaApp } = await import("../transfers/helpers");
const { platformSessionStorage } = await import("~/services/shops/platform-sessions.server");
const { apiHarness } = await import("../../support/harness");
const listPage = await import("~/routes/app.lists.$id");
const analyticsCsv = await import("~/routes/app.analytics.csv");

const { app, validator, clientFor, callsOf } = await apiHarness();
const products = createQueue(JOBS.productSnapshot.queue);
const maintenance = createQueue(MAINTENANCE_QUEUE);
afterAll(async () => {
  await products.resume();
  await Promise.all([products.close(), maintenance.close()]);
});

useWorker();

/** The shop catalogue the fake platform answers product lookups from (numeric id -> title, handle). */
const CATALOGUE: Record<string, { title: string; handle: string }> = {
  "101": { title: "Aurora Linen Shirt", handle: "aurora-linen-shirt" },
  "102": { title: "Harbor Wool Coat", handle: "harbor-wool-coat" },
  "104": { title: "Meadow Sun Hat", handle: "meadow-sun-hat" },
  "201": { title: "Canyon Leather Boots", handle: "canyon-leather-boots" },
  "301": { title: "Tidal Swim Shorts", handle: "tidal-swim-shorts" },
  "401": { title: "Summit Rain Jacket", handle: "summit-rain-jacket" },
  "501": { title: "Orchard Knit Sweater", handle: "orchard-knit-sweater" },
};
const catalogue = productCatalogue(CATALOGUE);
beforeEach(() => platform.answer(catalogue));

const gid = (id: string) => `gid://shopify/Product/${id}`;
const lookupsWith = (token: string) =>
  platform.calls.filter((call) => call.accessToken === token && isProductLookup(call));
const idsOf = (call: RecordedCall) => call.variables.ids as string[];

/** A connected shop (an offline token, as installing the app leaves) and a guest shopper of it. */
async function connectedShop(token = `shpat_${randomUUID().slice(0, 8)}`) {
  const { shop, secret } = await createShopWithKey();
  await connectToPlatform(shop.domain, token);
  return { shop, secret, token, ...shopperOf(shop) };
}

/** A guest shopper through the public key, and a customer through the app proxy. */
function shopperOf(shop: { domain: string; publicKey: string }) {
  const aid = randomUUID();
  const calls = callsOf({ shop });
  const publicCall = (path: string, method = "GET", body?: unknown) => calls.publicCall(path, { method, body });
  const proxyCall = (path: string, customerId: string, method = "GET", body?: unknown) =>
    calls.proxyCall(path, customerId, { method, body });
  const save = async (item: { productId: string; handle: string; title?: string }) => {
    const response = await publicCall("/storefront/wishlist/items", "POST", { ...item, anonymousId: aid });
    expect(response.status).toBe(201);
  };
  const wishlist = async () => {
    const response = await publicCall(`/storefront/wishlist?aid=${aid}`);
    expect(response.status).toBe(200);
    return (await response.json()) as {
      id: string;
      items: Array<{ productId: string; handle: string; titleSnapshot: string; available: boolean }>;
    };
  };
  return { aid, publicCall, proxyCall, save, wishlist };
}

const itemsOf = (shopId: string) =>
  database().selectFrom("Item").selectAll().where("shopId", "=", shopId).orderBy("productId").execute();

const untitled = (rows: Array<{ titleSnapshot: string; productLookupAt: Date | null }>) =>
  rows.filter((row) => row.productLookupAt !== null && row.productLookupAt.getTime() <= Date.now()).length;

/** Jobs the product queue holds that have not run yet. */
const pendingRuns = () => products.getJobCountByTypes("waiting", "delayed", "prioritized");

/** Runs the snapshot sweep now (as its schedule does every minute); resolves with what it queued. */
async function sweep(): Promise<string[]> {
  const job = await maintenance.add(sweepJob("productSnapshot").name, {}, { removeOnComplete: false });
  const done = await until(
    async () => (await maintenance.getJob(job.id!))!,
    (found) => found.finishedOn !== undefined,
    "the sweep to run",
  );
  expect(done.failedReason).toBeUndefined();
  return (done.returnvalue as { shopIds: string[] }).shopIds;
}

describe("product snapshots", () => {
  it("fills the title and handle of saves without a title, one run and one nodes(ids:) query per shop", async () => {
    // GIVEN two connected shops, and the product queue paused so every save lands before the runs start
    await products.pause();
    const a = await connectedShop();
    const b = await connectedShop();
    const other = shopperOf(a.shop);
    try {
      // WHEN shoppers save without a title (public key and app proxy), with a stale handle, and with a title
      await a.save({ productId: "101", handle: "old-handle" });
      await a.save({ productId: "102", handle: "harbor-wool-coat" });
      await a.save({ productId: "103", handle: "given", title: "Title from the theme" });
      await other.save({ productId: "101", handle: "old-handle" });
      const proxied = await a.proxyCall("/storefront/wishlist/toggle", "55", "POST", {
        productId: "104",
        handle: "meadow-sun-hat",
      });
      expect(proxied.status).toBe(200);
      await b.save({ productId: "201", handle: "boots" });
      // THEN each shop holds one pending run, however many saves it had (a save queues it after answering,
      // without waiting: the last one lands shortly after its answer)
      await expect.poll(pendingRuns, { timeout: 30_000 }).toBe(2);
    } finally {
      await products.resume();
    }
    await until(
      () => itemsOf(a.shop.id),
      (rows) => untitled(rows) === 0,
      "shop A's titles",
    );
    await until(
      () => itemsOf(b.shop.id),
      (rows) => untitled(rows) === 0,
      "shop B's titles",
    );

    // One query per shop, with its own token, asking exactly its saved products by GID (the titled one too:
    // a title a save carries is the shopper's word, decision 029).
    const asked = lookupsWith(a.token);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.path).toMatch(/^\/admin\/api\/[\d-]+\/graphql\.json$/);
    expect(asked[0]!.query).toMatch(/nodes\(ids: \$ids\)/);
    expect(asked[0]!.query).toMatch(/\.\.\. on Product \{ id title handle \}/);
    expect(idsOf(asked[0]!).sort()).toEqual([gid("101"), gid("102"), gid("103"), gid("104")]);
    expect(lookupsWith(b.token).map(idsOf)).toEqual([[gid("201")]]);

    // The lists show the platform's title and current handle; a product the shop does not have keeps the
    // title its save carried, and is no longer available.
    const list = await a.wishlist();
    expect(
      list.items
        .map(({ productId, handle, titleSnapshot, available }) => ({ productId, handle, titleSnapshot, available }))
        .sort((x, y) => x.productId.localeCompare(y.productId)),
    ).toEqual([
      { productId: "101", handle: "aurora-linen-shirt", titleSnapshot: "Aurora Linen Shirt", available: true },
      { productId: "102", handle: "harbor-wool-coat", titleSnapshot: "Harbor Wool Coat", available: true },
      { productId: "103", handle: "given", titleSnapshot: "Title from the theme", available: false },
    ]);
    expect((await other.wishlist()).items[0]).toMatchObject({ titleSnapshot: "Aurora Linen Shirt" });
    const api = clientFor(a.secret);
    const { data: lists } = await api.GET("/lists", { params: { query: { limit: 10 } } });
    const customerList = lists!.data.find(
      (summary) => summary.owner.type === "customer" && summary.owner.customerId === "55",
    )!;
    const { data: detail } = await api.GET("/lists/{id}", { params: { path: { id: customerList.id } } });
    expect(detail!.items).toEqual([
      expect.objectContaining({ productId: "104", titleSnapshot: "Meadow Sun Hat", available: true }),
    ]);
  });

  it("waits as long as a THROTTLED answer says, then asks again and fills the titles", async () => {
    const c = await connectedShop();
    // An empty bucket: 3 points missing at 2 points a second, so the platform asks for 1.5 s.
    let throttled = false;
    platform.answer((call) => {
      if (call.accessToken !== c.token || throttled) return catalogue(call);
      throttled = true;
      return throttledAnswer({ cost: 3, maximum: 100, restoreRate: 2 });
    });
    await c.save({ productId: "301", handle: "shorts" });
    await until(
      () => itemsOf(c.shop.id),
      (rows) => rows[0]?.titleSnapshot === "Tidal Swim Shorts",
      "the title",
    );
    const [first, second, ...more] = lookupsWith(c.token);
    expect(more).toEqual([]);
    expect(idsOf(second!)).toEqual(idsOf(first!));
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1_450);
  });

  it("hands a wait longer than a run sleeps back to the queue: the job is retried after the platform's delay", async () => {
    const g = await connectedShop();
    // 62 points missing at 2 points a second: the platform asks for 31 s, more than a run sleeps (30 s).
    let throttled = false;
    platform.answer((call) => {
      if (call.accessToken !== g.token || throttled) return catalogue(call);
      throttled = true;
      return throttledAnswer({ cost: 62, maximum: 100, restoreRate: 2 });
    });
    await g.save({ productId: "501", handle: "sweater" });
    // The run ends at once and its job waits in the queue, delayed, with one attempt made.
    const job = await until(
      async () => (await products.getJobs(["delayed"])).find((found) => found.data.shopId === g.shop.id),
      (found) => found !== undefined && found.attemptsMade === 1,
      "the job to be delayed for its retry",
    );
    expect(job!.delay).toBeGreaterThanOrEqual(31_000);
    await until(
      () => itemsOf(g.shop.id),
      (rows) => rows[0]?.titleSnapshot === "Orchard Knit Sweater",
      "the title",
    );
    const [first, second, ...more] = lookupsWith(g.token);
    expect(more).toEqual([]);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(31_000);
  }, 120_000);

  it("asks again after transient failures (HTTP 503) within the run", async () => {
    const d = await connectedShop();
    let failures = 0;
    platform.answer((call) => {
      if (call.accessToken === d.token && failures < 2) {
        failures += 1;
        return { status: 503, body: { errors: "Service Unavailable" } };
      }
      return catalogue(call);
    });
    await d.save({ productId: "401", handle: "jacket" });
    await until(
      () => itemsOf(d.shop.id),
      (rows) => rows[0]?.titleSnapshot === "Summit Rain Jacket",
      "the title",
    );
    expect(lookupsWith(d.token)).toHaveLength(3);
  });

  it("puts off a shop with no token or a refused one, asks nothing more, and the sweep does not queue it again", async () => {
    // GIVEN a shop that never connected, and one whose token the platform refuses
    const { shop: unconnected } = await createShopWithKey();
    const lonely = shopperOf(unconnected);
    const refused = await connectedShop("shpat_revoked");
    platform.answer((call) =>
      call.accessToken === "shpat_revoked"
        ? { status: 401, body: { errors: "[API] Invalid API key or access token" } }
        : catalogue(call),
    );
    const callsBefore = platform.calls.length;
    // The calls made for these two shops (the other tests' shops' work, such as their alerts' readings, may
    // still be running).
    const theirCalls = () =>
      platform.calls.slice(callsBefore).filter((call) => !call.accessToken || call.accessToken === "shpat_revoked");
    await lonely.save({ productId: "501", handle: "sweater" });
    await refused.save({ productId: "501", handle: "sweater" });
    // THEN both runs put the lookups off by an hour, untitled
    for (const shopId of [unconnected.id, refused.shop.id]) {
      const [item] = await until(
        () => itemsOf(shopId),
        (rows) => rows[0]!.productLookupAt!.getTime() > Date.now() + POSTPONE_MS / 2,
        "the lookup put off",
      );
      expect(item!.titleSnapshot).toBe("");
    }
    // The shop without a token cost no call at all; the refused one, one.
    expect(theirCalls().map((call) => call.accessToken)).toEqual(["shpat_revoked"]);
    // AND the sweep leaves them be (nothing due), so nothing is asked again
    const queued = await sweep();
    expect(queued).not.toContain(unconnected.id);
    expect(queued).not.toContain(refused.shop.id);
    expect(await pendingRuns()).toBe(0);
    expect(theirCalls()).toHaveLength(1);
  });

  it("the sweep queues a shop whose lookups are due without a job (Redis lost it), and they are filled", async () => {
    const e = await connectedShop();
    const list = await createList(e.shop.id, { anonymousId: e.aid });
    // An item due two minutes ago, written without queueing anything.
    await insertItem(database(), e.shop.id, {
      listId: list.id,
      productId: "102",
      variantId: "",
      handle: "coat",
      titleSnapshot: "",
      addedAt: new Date(),
      productLookupAt: new Date(Date.now() - 120_000),
    });
    expect(await sweep()).toContain(e.shop.id);
    await until(
      () => itemsOf(e.shop.id),
      (rows) => rows[0]?.titleSnapshot === "Harbor Wool Coat",
      "the title",
    );
    expect(lookupsWith(e.token).map(idsOf)).toEqual([[gid("102")]]);
    expect(await sweep()).not.toContain(e.shop.id);
  });

  it("fills an import's untitled rows in batches of at most 250 ids; a product the platform does not know is unavailable, never asked again", async () => {
    // GIVEN 600 imported saves of 600 products (300 per customer), all but one in the shop's catalogue
    const f = await connectedShop();
    const known: Record<string, { title: string; handle: string }> = {};
    for (let index = 0; index < 599; index++)
      known[String(9000 + index)] = { title: `P${index}`, handle: `p-${index}` };
    platform.answer(
      withProductLookups(customerSearch({}, undefined, { ids: ["8001", "8002"] }), productCatalogue(known)),
    );
    const rows = ["customer_id,anonymous_id,product_id,variant_id,handle,added_at"];
    for (let index = 0; index < 600; index++) rows.push(`${8001 + (index % 2)},,${9000 + index},,h,2024-01-01`);
    const api = clientFor(f.secret);
    await products.pause();
    try {
      const { fileUrl } = await upload(api, viaApp(app), rows.join("\n"));
      expect(await runImport(api, { source: "csv", fileUrl })).toMatchObject({ status: "succeeded", imported: 600 });
      expect(await pendingRuns()).toBe(1);
    } finally {
      await products.resume();
    }
    // THEN three queries of 250, 250 and 100 ids, each product asked once
    await until(
      () => itemsOf(f.shop.id),
      (items) => untitled(items) === 0,
      "600 titles",
      90_000,
    );
    const asked = lookupsWith(f.token);
    expect(asked.map((call) => idsOf(call).length)).toEqual([250, 250, 100]);
    expect(new Set(asked.flatMap(idsOf)).size).toBe(600);
    const items = await itemsOf(f.shop.id);
    expect(items.filter((item) => item.titleSnapshot !== "")).toHaveLength(599);
    expect(items.find((item) => item.productId === "9001")).toMatchObject({
      titleSnapshot: "P1",
      handle: "p-1",
      productLookupAt: null,
      unavailableAt: null,
    });
    expect(items.find((item) => item.productId === "9599")).toMatchObject({
      titleSnapshot: "",
      productLookupAt: null,
      unavailableAt: expect.any(Date),
    });
    // AND nothing is asked again
    expect(await sweep()).not.toContain(f.shop.id);
    expect(lookupsWith(f.token)).toHaveLength(3);
  }, 120_000);
});

describe("catalogue titles (decision 029)", () => {
  /** A connected shop whose admin the merchant opens (an offline session with the app's scopes). */
  async function shopWithAdmin() {
    const { shop, secret } = await createShopWithKey();
    const token = `shpat_${randomUUID().slice(0, 8)}`;
    const session = new Session({ id: `offline_${shop.domain}`, shop: shop.domain, state: "", isOnline: false });
    session.scope = getEnv().SCOPES;
    session.accessToken = token;
    await platformSessionStorage.storeSession(session);
    const adminRequest = async (pathAndQuery: string) => {
      const sessionToken = await signSessionToken({
        shopDomain: shop.domain,
        apiKey: getEnv().SHOPIFY_API_KEY,
        apiSecret: getEnv().SHOPIFY_API_SECRET,
      });
      return new Request(`${getEnv().SHOPIFY_APP_URL}${pathAndQuery}`, {
        headers: { authorization: `Bearer ${sessionToken}` },
      });
    };
    /** The admin's list page as its loader hands it to the page: each item's product name. */
    const adminList = async (listId: string) => {
      const answer = await listPage.loader({
        request: await adminRequest(`/app/lists/${listId}`),
        params: { id: listId },
        context: {},
      });
      const { list } = answer as Exclude<typeof answer, { data: unknown }>;
      return list!.items.map(({ productId, catalogueTitle, savedTitle }) => ({
        productId,
        catalogueTitle,
        savedTitle,
      }));
    };
    /** The admin's list page as its loader hands it to the page: each item's handles, the catalogue's or not. */
    const adminHandles = async (listId: string) => {
      const answer = await listPage.loader({
        request: await adminRequest(`/app/lists/${listId}`),
        params: { id: listId },
        context: {},
      });
      const { list } = answer as Exclude<typeof answer, { data: unknown }>;
      return list!.items
        .map(({ productId, catalogueHandle, savedHandle }) => ({ productId, catalogueHandle, savedHandle }))
        .sort((a, b) => a.productId.localeCompare(b.productId));
    };
    /** The analytics page's "most saved products" download, as rows of cells. */
    const topProductsCsv = async () => {
      const response = await analyticsCsv.loader({
        request: await adminRequest("/app/analytics/csv?report=products&range=7d"),
        params: {},
        context: {},
      });
      expect(response.status).toBe(200);
      const { data } = Papa.parse<string[]>((await response.text()).trim());
      return data.slice(1);
    };
    return { shop, secret, token, adminList, adminHandles, topProductsCsv };
  }

  it("a title a shopper sends (public key, app proxy) gives way to the catalogue's, which a later forged save does not overwrite", async () => {
    // GIVEN a connected shop, and the product queue paused so the lookups wait
    const admin = await shopWithAdmin();
    const guest = shopperOf(admin.shop);
    await products.pause();
    try {
      // WHEN a guest (public key) and a customer (app proxy) save real products with titles of their own
      await guest.save({ productId: "401", handle: "summit-rain-jacket", title: "FREE iPhone, click here" });
      const proxied = await guest.proxyCall("/storefront/wishlist/toggle", "7001", "POST", {
        productId: "501",
        handle: "orchard-knit-sweater",
        title: "Forged by a customer",
      });
      expect(proxied.status).toBe(200);
      // THEN each save is due for a lookup, titled as it was sent meanwhile (the shopper sees their title)
      expect((await guest.wishlist()).items).toEqual([
        expect.objectContaining({ productId: "401", titleSnapshot: "FREE iPhone, click here" }),
      ]);
      expect(
        (await itemsOf(admin.shop.id)).map(({ productId, productLookupAt, catalogueTitleAt }) => ({
          productId,
          due: productLookupAt !== null,
          catalogueTitleAt,
        })),
      ).toEqual([
        { productId: "401", due: true, catalogueTitleAt: null },
        { productId: "501", due: true, catalogueTitleAt: null },
      ]);
      // AND the merchant's list page marks the title as the shopper's, not the product's
      const guestList = (await guest.wishlist()).id;
      expect(await admin.adminList(guestList)).toEqual([
        { productId: "401", catalogueTitle: null, savedTitle: "FREE iPhone, click here" },
      ]);
      // AND the analytics download never names a product by a shopper's title (it asks the catalogue)
      const pending = await until(
        () => admin.topProductsCsv(),
        (rows) => rows.length === 2,
        "both saves in the analytics",
      );
      expect(pending.map((row) => row.slice(0, 2)).sort()).toEqual([
        ["401", "Summit Rain Jacket"],
        ["501", "Orchard Knit Sweater"],
      ]);
    } finally {
      await products.resume();
    }

    // WHEN the worker's lookup has run
    await until(
      () => itemsOf(admin.shop.id),
      (rows) => rows.every((row) => row.productLookupAt === null),
      "the lookups",
    );
    // THEN the catalogue's title (and handle) replaced each forged one, marked as the catalogue's
    const looked = await itemsOf(admin.shop.id);
    expect(looked.map(({ productId, titleSnapshot, handle }) => ({ productId, titleSnapshot, handle }))).toEqual([
      { productId: "401", titleSnapshot: "Summit Rain Jacket", handle: "summit-rain-jacket" },
      { productId: "501", titleSnapshot: "Orchard Knit Sweater", handle: "orchard-knit-sweater" },
    ]);
    expect(looked.every((row) => row.catalogueTitleAt instanceof Date)).toBe(true);
    const customerListId = looked.find((row) => row.productId === "501")!.listId;
    expect(await admin.adminList(customerListId)).toEqual([
      { productId: "501", catalogueTitle: "Orchard Knit Sweater", savedTitle: null },
    ]);
    expect((await guest.wishlist()).items[0]).toMatchObject({ titleSnapshot: "Summit Rain Jacket" });

    // WHEN other shoppers save the same products with forged titles, the lookups held back again
    const other = shopperOf(admin.shop);
    await products.pause();
    try {
      await other.save({ productId: "401", handle: "made-up", title: "Forged again" });
      const again = await other.proxyCall("/storefront/wishlist/toggle", "7002", "POST", {
        productId: "501",
        handle: "made-up",
        title: "Forged by another customer",
      });
      expect(again.status).toBe(200);
      // THEN the new items take the catalogue's title at once, and no saved item changed
      expect((await other.wishlist()).items).toEqual([
        expect.objectContaining({
          productId: "401",
          handle: "summit-rain-jacket",
          titleSnapshot: "Summit Rain Jacket",
        }),
      ]);
      const items = await itemsOf(admin.shop.id);
      expect(items).toHaveLength(4);
      expect(items.map((row) => row.titleSnapshot).sort()).toEqual([
        "Orchard Knit Sweater",
        "Orchard Knit Sweater",
        "Summit Rain Jacket",
        "Summit Rain Jacket",
      ]);
      expect(items.every((row) => row.catalogueTitleAt !== null)).toBe(true);
      const otherList = items.find((row) => row.productId === "501" && row.listId !== customerListId)!.listId;
      expect(await admin.adminList(otherList)).toEqual([
        { productId: "501", catalogueTitle: "Orchard Knit Sweater", savedTitle: null },
      ]);
    } finally {
      await products.resume();
    }
    // AND after their lookups the admin's download and every item still name the catalogue's title
    await until(
      () => itemsOf(admin.shop.id),
      (rows) => rows.every((row) => row.productLookupAt === null),
      "the second lookups",
    );
    expect(new Set((await itemsOf(admin.shop.id)).map((row) => row.titleSnapshot))).toEqual(
      new Set(["Summit Rain Jacket", "Orchard Knit Sweater"]),
    );
    const downloaded = await until(
      () => admin.topProductsCsv(),
      (rows) => rows.length === 2 && rows.every((row) => row[3] === "2"),
      "the second saves in the analytics",
    );
    expect(downloaded.map((row) => row.slice(0, 3)).sort()).toEqual([
      ["401", "Summit Rain Jacket", "summit-rain-jacket"],
      ["501", "Orchard Knit Sweater", "orchard-knit-sweater"],
    ]);
  });

  it("a handle a shopper sends is never shown as the product's either: analytics and the admin take the catalogue's", async () => {
    // GIVEN a connected shop, the lookups held back
    const admin = await shopWithAdmin();
    const guest = shopperOf(admin.shop);
    await products.pause();
    try {
      // WHEN a guest saves a real product and a made-up one, each with a forged handle
      await guest.save({ productId: "401", handle: "FREE-iPhone-claim-at-evil.example", title: "FREE iPhone" });
      await guest.save({ productId: "987654321", handle: "FREE-iPhone-claim-at-evil.example", title: "FREE iPhone" });
      // THEN while the lookups wait, the download names the real product and its handle from the catalogue,
      // and the made-up one by its id, with no handle
      const pending = await until(
        () => admin.topProductsCsv(),
        (rows) => rows.length === 2,
        "both saves in the analytics",
      );
      expect(pending.map((row) => row.slice(0, 3)).sort()).toEqual([
        ["401", "Summit Rain Jacket", "summit-rain-jacket"],
        ["987654321", "Product 987654321", ""],
      ]);
      // AND the merchant's list page gives no handle as the product's
      expect(await admin.adminHandles((await guest.wishlist()).id)).toEqual([
        { productId: "401", catalogueHandle: null, savedHandle: "FREE-iPhone-claim-at-evil.example" },
        { productId: "987654321", catalogueHandle: null, savedHandle: "FREE-iPhone-claim-at-evil.example" },
      ]);
    } finally {
      await products.resume();
    }
    // WHEN the lookups have run (the made-up product is not the shop's: it is marked unavailable)
    await until(
      () => itemsOf(admin.shop.id),
      (rows) => rows.every((row) => row.productLookupAt === null),
      "the lookups",
    );
    expect(await admin.adminHandles((await guest.wishlist()).id)).toEqual([
      { productId: "401", catalogueHandle: "summit-rain-jacket", savedHandle: null },
      { productId: "987654321", catalogueHandle: null, savedHandle: "FREE-iPhone-claim-at-evil.example" },
    ]);
    // THEN the made-up product is still named by its id, with no handle, in the download and the API
    const after = await admin.topProductsCsv();
    expect(after.map((row) => row.slice(0, 3)).sort()).toEqual([
      ["401", "Summit Rain Jacket", "summit-rain-jacket"],
      ["987654321", "Product 987654321", ""],
    ]);
    const top = await rawCall(app, validator, "/v1/analytics/top-products?range=7d", {
      headers: { Authorization: `Bearer ${admin.secret}` },
    });
    expect(top.status).toBe(200);
    const body = (await top.json()) as {
      products: Array<{ productId: string; handle: string | null; title: string | null }>;
    };
    expect(body.products.find((row) => row.productId === "987654321")).toMatchObject({ handle: null, title: null });
    expect(body.products.find((row) => row.productId === "401")).toMatchObject({
      handle: "summit-rain-jacket",
      title: "Summit Rain Jacket",
    });
  });

  it("the migration makes titled items the catalogue has not named due for a lookup, which replaces their titles", async () => {
    // GIVEN items as they stood before decision 029: titled saves never looked up, a product found gone, an
    // item the catalogue named, and an untitled save still due
    const admin = await shopWithAdmin();
    const a = await createList(admin.shop.id);
    const b = await createList(admin.shop.id);
    const c = await createList(admin.shop.id);
    const d = await createList(admin.shop.id);
    const e = await createList(admin.shop.id);
    const stood = new Date(Date.now() + POSTPONE_MS);
    const rows = [
      { listId: a.id, productId: "101", titleSnapshot: "Shopper's shirt" },
      { listId: b.id, productId: "102", titleSnapshot: "Shopper's coat" },
      { listId: c.id, productId: "999", titleSnapshot: "Gone product", unavailableAt: new Date() },
      { listId: d.id, productId: "104", titleSnapshot: "Meadow Sun Hat", catalogueTitleAt: new Date() },
      { listId: e.id, productId: "201", titleSnapshot: "", productLookupAt: stood },
    ];
    const owners = new Map([a, b, c, d, e].map((list) => [list.id, `a:${list.anonymousId}`]));
    for (const row of rows) {
      await database()
        .insertInto("Item")
        .values({
          id: newId("item"),
          ownerKey: owners.get(row.listId)!,
          shopId: admin.shop.id,
          handle: "h",
          variantId: "",
          addedAt: new Date(),
          productLookupAt: null,
          unavailableAt: null,
          catalogueTitleAt: null,
          ...row,
        })
        .execute();
    }
    // WHEN the engine's migration runs
    const folder = inject("engine") === "sqlite" ? "prisma/migrations" : "prisma/postgres/migrations";
    const file = path.join(ROOT, folder, "20261128051406_item_title_lookups/migration.sql");
    await sql.raw(readFileSync(file, "utf8")).execute(database());
    // THEN the titled items not named by the catalogue, of products not gone, are due now; the rest unchanged
    const due = (await itemsOf(admin.shop.id)).map(({ productId, productLookupAt }) => ({
      productId,
      dueNow: productLookupAt !== null && productLookupAt.getTime() <= Date.now(),
      lookupAt: productLookupAt,
    }));
    expect(due).toEqual([
      { productId: "101", dueNow: true, lookupAt: expect.any(Date) },
      { productId: "102", dueNow: true, lookupAt: expect.any(Date) },
      { productId: "104", dueNow: false, lookupAt: null },
      { productId: "201", dueNow: false, lookupAt: stood },
      { productId: "999", dueNow: false, lookupAt: null },
    ]);
    // AND the shop's run gives them the catalogue's titles
    // (the sweep queues a shop whose lookups are a minute overdue, tested above; here its run is asked at once)
    await requestProductSnapshots(admin.shop.id);
    await until(
      () => itemsOf(admin.shop.id),
      (items) => items.filter((item) => item.catalogueTitleAt !== null).length === 3,
      "the migrated items' lookups",
    );
    expect(
      (await itemsOf(admin.shop.id)).map(({ productId, titleSnapshot, catalogueTitleAt }) => ({
        productId,
        titleSnapshot,
        fromCatalogue: catalogueTitleAt !== null,
      })),
    ).toEqual([
      { productId: "101", titleSnapshot: "Aurora Linen Shirt", fromCatalogue: true },
      { productId: "102", titleSnapshot: "Harbor Wool Coat", fromCatalogue: true },
      { productId: "104", titleSnapshot: "Meadow Sun Hat", fromCatalogue: true },
      { productId: "201", titleSnapshot: "", fromCatalogue: false },
      { productId: "999", titleSnapshot: "Gone product", fromCatalogue: false },
    ]);
    expect(lookupsWith(admin.token).flatMap(idsOf).sort()).toEqual([gid("101"), gid("102")]);
  });
});

describe("products/delete", () => {
  const send = (shopDomain: string, body: string, webhookId?: string, topic = "products/delete") =>
    app.request(`${BASE_URL}/webhooks/products/delete`, platformWebhook(topic, shopDomain, body, undefined, webhookId));

  const processedFor = (shopDomain: string) =>
    database().selectFrom("PlatformWebhook").selectAll().where("shopDomain", "=", shopDomain).execute();

  it("marks the shop's saved items of the product unavailable in every list response, once per webhook", async () => {
    // GIVEN a shop where two shoppers saved product 301 (one list shared) beside 302, and another shop's item 301
    const p = await connectedShop();
    const second = shopperOf(p.shop);
    const q = await connectedShop();
    for (const shopper of [p, second, q]) await shopper.save({ productId: "301", handle: "shorts", title: "Shorts" });
    await p.save({ productId: "302", handle: "other", title: "Other" });
    const share = await p.publicCall(`/storefront/wishlist/share?aid=${p.aid}`, "POST");
    const { token } = (await share.json()) as { token: string };

    // WHEN the platform says product 301 was deleted in shop P
    const webhookId = randomUUID();
    const body = JSON.stringify({ id: 301 });
    expect((await send(p.shop.domain, body, webhookId)).status).toBe(200);

    // THEN P's items of 301 read available: false wherever an item is shown, and the rest is untouched
    const availability = (items: Array<{ productId: string; available: boolean }>) =>
      Object.fromEntries(items.map((item) => [item.productId, item.available]));
    expect(availability((await p.wishlist()).items)).toEqual({ "301": false, "302": true });
    expect(availability((await second.wishlist()).items)).toEqual({ "301": false });
    const shared = await p.publicCall(`/storefront/lists/${token}`);
    expect(availability(((await shared.json()) as { items: [] }).items)).toEqual({ "301": false, "302": true });
    const api = clientFor(p.secret);
    const { data: detail } = await api.GET("/lists/{id}", { params: { path: { id: (await p.wishlist()).id } } });
    expect(availability(detail!.items)).toEqual({ "301": false, "302": true });
    expect(availability((await q.wishlist()).items)).toEqual({ "301": true });

    // AND a second delivery (same id) or the same signed body under a new id changes nothing
    const before = await itemsOf(p.shop.id);
    expect((await send(p.shop.domain, body, webhookId)).status).toBe(200);
    expect((await send(p.shop.domain, body)).status).toBe(200);
    // (sent again naming the other shop, the signed body is still the one already processed)
    expect((await send(q.shop.domain, body)).status).toBe(200);
    expect(await itemsOf(p.shop.id)).toEqual(before);
    expect(availability((await q.wishlist()).items)).toEqual({ "301": true });
    expect((await processedFor(p.shop.domain)).map((row) => row.topic)).toEqual(["products/delete", "products/delete"]);
  });

  it.each([
    ["no product id", JSON.stringify({ title: "gone" })],
    ["a product id that is no id", JSON.stringify({ id: "abc" })],
    ["a product id of zero", JSON.stringify({ id: 0 })],
    ["a body that is not an object", JSON.stringify([301])],
  ])("refuses a signed webhook with %s: 400 problem, nothing done", async (_case, body) => {
    const p = await connectedShop();
    await p.save({ productId: "301", handle: "shorts", title: "Shorts" });
    const response = await send(p.shop.domain, body);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toMatchObject({ status: 400, type: expect.stringMatching(/\/problems\//) });
    expect((await p.wishlist()).items[0]!.available).toBe(true);
    expect(await processedFor(p.shop.domain)).toEqual([]);
  });

  it("refuses unsigned webhooks, another topic's webhook and a malformed shop header; answers 200 for an unknown shop", async () => {
    const p = await connectedShop();
    await p.save({ productId: "301", handle: "shorts", title: "Shorts" });
    const body = JSON.stringify({ id: 301 });
    const unsigned = await app.request(`${BASE_URL}/webhooks/products/delete`, {
      ...platformWebhook("products/delete", p.shop.domain, body, "wrong-secret"),
    });
    expect(unsigned.status).toBe(401);
    expect((await send(p.shop.domain, body, undefined, "products/update")).status).toBe(400);
    expect((await send("not a shop", body)).status).toBe(400);
    expect((await p.wishlist()).items[0]!.available).toBe(true);
    const unknown = await send("no-such-shop.myshopify.com", JSON.stringify({ id: 999 }));
    expect(unknown.status).toBe(200);
    expect(await processedFor("no-such-shop.myshopify.com")).toEqual([]);
  });

  it("drops a lookup still due for the deleted product", async () => {
    await products.pause();
    const p = await connectedShop();
    try {
      await p.save({ productId: "303", handle: "gone" });
      expect((await send(p.shop.domain, JSON.stringify({ id: 303 }))).status).toBe(200);
    } finally {
      await products.resume();
    }
    const [item] = await itemsOf(p.shop.id);
    expect(item).toMatchObject({ productLookupAt: null, unavailableAt: expect.any(Date), titleSnapshot: "" });
    await until(pendingRuns, (count) => count === 0, "the shop's run to end");
    expect(lookupsWith(p.token)).toEqual([]);
  });
});

describe("the platform stand-in", () => {
  it("deletes a product as the merchant does: the app gets a signed products/delete and the item turns unavailable", async () => {
    // GIVEN the app listening on loopback, and the local platform holding the shop's catalogue
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(started));
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const s = await connectedShop();
    const standIn = await startPlatformStandIn({
      appUrl: `http://127.0.0.1:${port}`,
      apiKey: "local-dev-api-key",
      apiSecret: "local-dev-api-secret",
      appHandle: "wishlist-service",
      scopes: "read_products,read_customers,write_customers,read_themes",
      shops: [demoShopData({ domain: s.shop.domain, accessToken: s.token })],
    });
    try {
      const [product] = standIn.shops[0]!.products;
      await s.save({ productId: product!.id, handle: product!.handle, title: product!.title });

      // WHEN the merchant deletes the product in the platform's admin
      expect(await standIn.deleteProduct(s.shop.domain, product!.id)).toBe(200);

      // THEN the app shows the item unavailable, and the platform no longer knows the product
      expect((await s.wishlist()).items).toEqual([
        expect.objectContaining({ productId: product!.id, available: false }),
      ]);
      const lookup = await fetch(`${standIn.origin}/admin/api/unstable/graphql.json`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-shopify-access-token": s.token },
        body: JSON.stringify({
          query: "query($ids: [ID!]!) { nodes(ids: $ids) { ... on Product { id title } } }",
          variables: { ids: [gid(product!.id)] },
        }),
      });
      expect(((await lookup.json()) as { data: unknown }).data).toEqual({ nodes: [null] });
    } finally {
      await standIn.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
