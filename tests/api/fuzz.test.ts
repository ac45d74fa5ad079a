import { Readable } from "node:stream";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { Credentials, FuzzRequest, Hints, OpenApiDocument } from "../support/fuzz";

// Set before the app reads its environment: the fuzz sends thousands of requests a minute from one shop and a
// few shoppers, and a small list cap makes full lists (409 list-full) part of what it meets.
process.env.RATE_LIMIT_PRIVATE_PER_MINUTE = "100000000";
process.env.RATE_LIMIT_STOREFRONT_PER_MINUTE = "100000000";
process.env.RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE = "100000000";
process.env.MAX_ITEMS_PER_LIST = "5";

const { insertComplianceRequest } = await import("~/data/compliance-rows.server");
const { database } = await import("~/data/database.server");
const { getEnv } = await import("~/env.server");
const { newId } = await import("~/lib/ids");
const { PROBLEM_TYPES, isProblemSlug } = await import("~/lib/problems");
const { createApiKey, revokeApiKey } = await import("~/services/keys/api-keys.server");
const { getStorage } = await import("~/services/storage/index.server");
const { createUpload } = await import("~/services/transfers/uploads.server");
const { createDelivery, createShopWithKey, createWebhookEndpoint, setShopPlan } = await import("../factories");
const { BASE_URL } = await import("../support/http");
const { apiHarness } = await import("../support/harness");
const { platformWebhook } = await import("../support/platform-webhooks");
const fuzz = await import("../support/fuzz");

/**
 * API fuzzing (issue 16): requests generated from the OpenAPI document the app serves, for every operation in
 * each calling mode (private key, public key, app proxy, customer account session token), with values the schemas allow and values they do
 * not (wrong types, members missing and added, NUL, emoji, 100 KB strings, bad ids and cursors, malformed
 * JSON, other content types, repeated query parameters). Invariants of every answer:
 *  - never a 5xx;
 *  - every 4xx is an application/problem+json document whose `type` is in the catalogue (app/lib/problems.ts)
 *    with the catalogue's status, the one the response has;
 *  - every status is one the document lists for the operation, and every JSON body matches its schema;
 *  - a refused request (4xx) leaves the database as it was (a digest of every table before and after).
 * Seven tenths of the requests go to each operation in turn, the rest to all of them interleaved. Fixed seed;
 * FUZZ_SEED and FUZZ_RUNS (total requests, default 10,000) change it; fast-check prints the seed and the shrunk
 * request of a failure, LOG_FUZZ=1 the answers by operation and mode.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 16_001);
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);

const { app, validator } = await apiHarness();
const document = (await (await app.request(`${BASE_URL}/openapi.json`)).json()) as OpenApiDocument;
const operations = fuzz.operationsOf(document);

// ---------------------------------------------------------------------------------------------------------
// The shop the requests act for, another shop whose ids and cursors they borrow, and real resources of both.

const { shop, key, secret } = await createShopWithKey("fuzz");
const other = await createShopWithKey("other shop");
// On a plan with every feature: the fuzzer must get past validation into every operation.
await setShopPlan(shop.id, "PLUS");
const revoked = await createApiKey({ shopId: shop.id, label: "revoked" });
await revokeApiKey({ shopId: shop.id, keyId: revoked.key.id });
// Keys the fuzz may revoke (never the one it calls with: the rest of the run would be 401s).
const spareKeys = await Promise.all(
  [1, 2, 3].map((index) => createApiKey({ shopId: shop.id, label: `spare ${index}` })),
);

const ORIGIN = "https://headless.example";
const GUEST = "6f1c2c1e-3a5b-4c7d-8e9f-0a1b2c3d4e5f";

async function call(path: string, init: RequestInit & { key?: string } = {}) {
  const { key = secret, ...rest } = init;
  const response = await app.request(`${BASE_URL}${path}`, {
    ...rest,
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...rest.headers },
  });
  if (response.status >= 300) throw new Error(`setup ${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? null : ((await response.json()) as Record<string, unknown>);
}

const SHOPPERS = [{ customerId: "31" }, { customerId: "42" }, { anonymousId: GUEST }];

/** The other shop: lists, a share link and a webhook endpoint the requests must never reach. */
for (const owner of SHOPPERS) {
  await call("/v1/storefront/wishlist/items", {
    method: "POST",
    key: other.secret,
    body: JSON.stringify({ productId: "1", handle: "product-1", ...owner }),
  });
}
const otherShared = (await call("/v1/storefront/wishlist/share", {
  method: "POST",
  key: other.secret,
  body: JSON.stringify({ customerId: "31" }),
}))!;
const otherEndpoint = await createWebhookEndpoint(other.shop.id);

const exports = await Promise.all([1, 2].map(() => call("/v1/exports", { method: "POST", body: '{"format":"csv"}' })));
// An upload with its file in place, so that imports can start from it.
const { upload, fileUrl } = await createUpload({
  shopId: shop.id,
  baseUrl: BASE_URL,
  filename: "a.csv",
  contentType: "text/csv",
});
await getStorage().write(upload.storageKey, Readable.from(["customer_id,product_id\n31,3\n"]), "text/csv");
const importJob = (await call("/v1/imports", {
  method: "POST",
  body: JSON.stringify({ source: "csv", fileUrl, dryRun: true }),
}))!;
const otherUpload = (await call("/v1/imports/upload", {
  method: "POST",
  key: other.secret,
  body: JSON.stringify({ filename: "b.csv", contentType: "text/csv" }),
}))!;
const compliance = await insertComplianceRequest(
  database(),
  { id: newId("complianceRequest"), shopId: shop.id, topic: "customers/data_request", customerId: "31" },
  new Date(),
);

/** `pageInfo.nextCursor` of a first page of one (each listing has at least two entries by now). */
async function cursorOf(path: string, key = secret) {
  const page = (await call(`${path}${path.includes("?") ? "&" : "?"}limit=1`, { key }))!;
  return (page.pageInfo as { nextCursor: string | null }).nextCursor!;
}

/** The UTC day `days` before today (YYYY-MM-DD). */
function daysAgo(days: number) {
  return new Date(Date.now() - days * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
}

/**
 * What requests draw from (beyond what the schemas allow): real ids of every kind, of this shop and the
 * other, owners, products, share tokens, cursors (this listing's, another listing's, another shop's, edited).
 * Ids, share tokens and cursors in successful answers join them as the run goes.
 */
const hints = {
  ids: [
    ...spareKeys.map((created) => created.key.id),
    revoked.key.id,
    other.key.id,
    otherEndpoint.endpoint.id,
    ...exports.map((job) => job!.jobId as string),
    importJob.jobId as string,
    upload.id,
    otherUpload.uploadId as string,
    compliance.id,
    shop.id,
  ],
  shareToken: [otherShared.token],
  cursor: [await cursorOf("/v1/exports"), await cursorOf("/v1/lists", other.secret)],
  // One customer and one guest, each spelled several ways, so that an owner named twice (query and body) is
  // mostly the same shopper; the schemas add others.
  customerId: ["31", "0031", "gid://shopify/Customer/31"],
  aid: [GUEST, GUEST.toUpperCase()],
  anonymousId: [GUEST, GUEST.toUpperCase()],
  logged_in_customer_id: ["31", "42"],
  // Clean calls name the owner as each mode may: a public key names no customer; a private key names a guest in
  // the body or a customer (not both: the query's aid is left out).
  "public:customerId": [],
  "private:aid": [],
  // The customer account session token names its customer; a customerId beside it is refused (403).
  "customerAccount:customerId": [],
  productId: ["1", "2", "3", "gid://shopify/Product/2", 4],
  variantId: ["11", null],
  handle: ["product-1", "product-2"],
  itemId: [] as string[],
  fileUrl: [fileUrl, otherUpload.fileUrl],
  url: ["https://receiver.example/fuzz"],
  headlessOrigins: [[ORIGIN], [ORIGIN, "https://other.example"]],
  label: ["fuzz key"],
  filename: ["fuzz.csv"],
  limit: [1, 2, 100],
  // The reports' custom ranges, within the last 366 days and `from` never after `to`: a clean call naming both
  // gets past validation; one naming `range` too, or only one of them, is refused (400), as the document says.
  from: [daysAgo(30), daysAgo(7)],
  to: [daysAgo(2), daysAgo(0)],
  "accept-language": ["en", "fr-CA,fr;q=0.9,en;q=0.8", "*"],
  // Two keys used again and again (replays, and the same key with another request); clean calls send fresh ones.
  "Idempotency-Key": ["fuzz-1", "fuzz-2"],
} satisfies Hints;

function remember(pool: unknown[], value: unknown, first = false) {
  if (pool.includes(value) || pool.length >= 300) return;
  if (first) pool.unshift(value);
  else pool.push(value);
}

/**
 * Before each operation's run: the shop's settings as the fixtures need them (guests and sharing on, the
 * headless origin declared), shoppers with saved items and a share link, live webhook endpoints with
 * deliveries. What earlier runs deleted or turned off would otherwise leave later operations only 403s and 404s.
 */
async function replenish() {
  await call("/v1/shop/settings", {
    method: "PATCH",
    body: JSON.stringify({ guestEnabled: true, shareEnabled: true, headlessOrigins: [ORIGIN] }),
  });
  for (const owner of SHOPPERS) {
    for (const productId of ["1", "2"]) {
      // A full list (409) is as good: it has items.
      await app.request(`${BASE_URL}/v1/storefront/wishlist/items`, {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ productId, handle: `product-${productId}`, ...owner }),
      });
    }
  }
  const shared = (await call("/v1/storefront/wishlist/share", { method: "POST", body: JSON.stringify(SHOPPERS[1]) }))!;
  // Links earlier runs turned off are dropped: this one, the other shop's, and those this run creates.
  hints.shareToken.splice(0, hints.shareToken.length, shared.token, otherShared.token);
  const live = await database()
    .selectFrom("WebhookEndpoint")
    .select("id")
    .where("shopId", "=", shop.id)
    .where("disabledAt", "is", null)
    .execute();
  const endpointIds = live.map((row) => row.id);
  while (endpointIds.length < 3) endpointIds.push((await createWebhookEndpoint(shop.id)).endpoint.id);
  for (const endpointId of endpointIds.slice(0, 2)) {
    // Two attempts each, so that a page of one delivery has a next page.
    for (const _attempt of [1, 2]) remember(hints.ids, (await createDelivery(shop.id, endpointId)).id);
  }
  remember(hints.cursor, await cursorOf(`/v1/webhooks/${endpointIds[0]}/deliveries`));
  for (const row of await database().selectFrom("List").select("id").where("shopId", "=", shop.id).execute()) {
    remember(hints.ids, row.id);
  }
  for (const row of await database().selectFrom("Item").select("id").where("shopId", "=", shop.id).execute()) {
    remember(hints.ids, row.id);
    remember(hints.itemId, row.id);
  }
  for (const id of endpointIds) remember(hints.ids, id);
  remember(hints.cursor, await cursorOf("/v1/lists"));
}

await replenish();
// Orders of the shoppers' saved products (signed order webhooks, as the platform sends them): conversions for the
// reports and for GET /conversions to page through (its cursors join the pool).
let orderNumber = 9_100_000_000;
for (const [customerId, productIds] of [
  ["31", ["1", "2"]],
  ["42", ["1"]],
] as const) {
  const body = JSON.stringify({
    id: ++orderNumber,
    created_at: new Date().toISOString(),
    currency: "USD",
    customer: { id: Number(customerId) },
    line_items: productIds.map((productId) => ({
      id: ++orderNumber,
      product_id: Number(productId),
      quantity: 1,
      price_set: {
        shop_money: { amount: "10.00", currency_code: "USD" },
        presentment_money: { amount: "9.00", currency_code: "EUR" },
      },
    })),
  });
  const response = await app.request(
    `${BASE_URL}/webhooks/orders/create`,
    platformWebhook("orders/create", shop.domain, body),
  );
  if (response.status !== 200) throw new Error(`setup order: ${response.status} ${await response.text()}`);
}
remember(hints.cursor, await cursorOf("/v1/conversions"));
const edited = hints.cursor[0] as string;
hints.cursor.push(`${edited.slice(0, -2)}AA`, edited.split(".")[0]!);

const credentials: Credentials = {
  shopDomain: shop.domain,
  privateKey: secret,
  publicKey: shop.publicKey,
  apiKey: getEnv().SHOPIFY_API_KEY,
  appSecret: getEnv().SHOPIFY_API_SECRET,
  otherShopDomain: other.shop.domain,
  badPrivateKeys: [revoked.secret, other.secret, "svc_sk_made-up"],
  origins: [ORIGIN],
};

// ---------------------------------------------------------------------------------------------------------
// The invariants of one request

/** Answers by operation and mode (status, and problem type), for the coverage check and LOG_FUZZ=1. */
const answers = new Map<string, Map<string, number>>();
let sent = 0;

/** Operations some request reached past the edge: its own method, answered neither 5xx nor an edge refusal. */
const reached = new Set<string>();
const EDGE_REFUSALS = new Set([400, 401, 403, 405, 413, 415, 422]);

function count(request: FuzzRequest, status: number, problemSlug: string | undefined) {
  sent += 1;
  const operation = request.operation.split(" ")[0];
  if (request.method === operation && status < 500 && !EDGE_REFUSALS.has(status)) reached.add(request.operation);
  const key = `${request.operation} (${request.mode})`;
  const byAnswer = answers.get(key) ?? new Map<string, number>();
  const answer = problemSlug ? `${status} ${problemSlug}` : String(status);
  byAnswer.set(answer, (byAnswer.get(answer) ?? 0) + 1);
  answers.set(key, byAnswer);
}

/** Service ids, share tokens and cursors in a successful answer join the pools later requests draw from. */
const ID = /^(lst|itm|key|whe|dlv|job|upl|cpl)_[0-9a-z]{26}$/;

function harvest(value: unknown, member?: string): void {
  if (typeof value === "string") {
    if (ID.test(value) && value !== key.id) remember(hints.ids, value);
    else if (member === "token") remember(hints.shareToken, value);
    else if (member === "nextCursor") remember(hints.cursor, value);
  } else if (Array.isArray(value)) {
    for (const entry of value) harvest(entry);
  } else if (typeof value === "object" && value !== null) {
    for (const [name, entry] of Object.entries(value)) harvest(entry, name);
  }
}

const problemType = (slug: string) => `${getEnv().SHOPIFY_APP_URL}/problems/${slug}`;

/**
 * The database as the last request left it: each request's "after" is the next one's "before" (nothing else
 * writes between them; the one write a request may leave behind it, a key's last use, is not in the digest).
 */
let state = await fuzz.databaseState();

async function startFrom() {
  await replenish();
  state = await fuzz.databaseState();
}

async function check(request: FuzzRequest) {
  const fail = (what: string) => new Error(`${what}\n  ${fuzz.describeRequest(request)}`);
  const response = await app.request(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const text = await response.text();
  const before = state;
  state = await fuzz.databaseState();
  const problem =
    response.status >= 400 && request.method !== "HEAD"
      ? (JSON.parse(text) as { type?: unknown; status?: unknown; title?: unknown })
      : undefined;
  const slug = typeof problem?.type === "string" ? problem.type.replace(problemType(""), "") : undefined;
  count(request, response.status, slug);

  if (response.status >= 500) throw fail(`answered ${response.status}: ${text.slice(0, 500)}`);
  if (response.status >= 400) {
    const contentType = response.headers.get("content-type");
    if (contentType !== "application/problem+json") {
      throw fail(`answered ${response.status} as ${contentType}: ${text.slice(0, 300)}`);
    }
    if (problem) {
      if (slug === undefined || !isProblemSlug(slug) || problem.type !== problemType(slug)) {
        throw fail(`problem type ${String(problem.type)} is not in the catalogue`);
      }
      const entry = PROBLEM_TYPES[slug];
      if (problem.status !== response.status || entry.status !== response.status || problem.title !== entry.title) {
        throw fail(`problem ${slug} (catalogue ${entry.status}) answered ${response.status}: ${text.slice(0, 300)}`);
      }
    }
    const changed = fuzz.changesBetween(before, state, request.idempotencyKey);
    if (changed.length > 0) {
      throw fail(`refused with ${response.status}, yet changed ${changed.join(", ")}: ${text.slice(0, 300)}`);
    }
  }
  if (request.method !== "HEAD") {
    try {
      const replay = new Response(response.status === 204 ? null : text, {
        status: response.status,
        headers: response.headers,
      });
      await validator.check(request.method, request.url, replay);
    } catch (error) {
      throw fail((error as Error).message);
    }
  }

  // What a request deleted is no longer worth drawing; what it created is.
  if (request.method === "DELETE" && response.status === 204) {
    const deleted = decodeURIComponent(new URL(request.url).pathname.split("/").pop()!);
    if (hints.ids.includes(deleted)) hints.ids.splice(hints.ids.indexOf(deleted), 1);
  }
  if (response.status < 300 && response.headers.get("content-type")?.startsWith("application/json") && text) {
    harvest(JSON.parse(text));
  }
}

/** The part of the runs spent on each operation alone; the rest interleaves them all. */
const perOperation = Math.ceil((RUNS * 0.7) / operations.length);
const interleaved = Math.max(0, RUNS - perOperation * operations.length);
const REPLENISH_EVERY = 250;

describe("API fuzzing from the served OpenAPI document", () => {
  it("reads every operation of the document", () => {
    expect(operations.length).toBeGreaterThan(30);
    expect(operations.every((operation) => operation.modes.length > 0)).toBe(true);
  });

  for (const operation of operations) {
    it(`${operation.name}: no 5xx, problems from the catalogue, refusals change nothing`, async () => {
      await startFrom();
      await fc.assert(
        fc.asyncProperty(fuzz.requestShape(operation, document, hints), async (shape) => {
          await check(fuzz.buildRequest(operation, shape, credentials));
        }),
        { seed: SEED, numRuns: perOperation },
      );
    }, 600_000);
  }

  it(`all operations interleaved (${interleaved} requests): what one leaves behind, the next meets`, async () => {
    await startFrom();
    const byName = new Map(operations.map((operation) => [operation.name, operation]));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          ...operations.map((operation) =>
            fuzz.requestShape(operation, document, hints).map((shape) => ({ operation: operation.name, shape })),
          ),
        ),
        async ({ operation, shape }) => {
          if (++run % REPLENISH_EVERY === 0) await startFrom();
          await check(fuzz.buildRequest(byName.get(operation)!, shape, credentials));
        },
      ),
      { seed: SEED, numRuns: interleaved },
    );
  }, 600_000);

  // Checked at the default size and above (a quick FUZZ_RUNS=500 cannot be expected to reach everything).
  it.skipIf(RUNS < 10_000)("sent every operation in every mode, and got past validation into every operation", () => {
    expect(sent).toBeGreaterThanOrEqual(RUNS);
    for (const operation of operations) {
      for (const mode of fuzz.MODES) expect(answers.has(`${operation.name} (${mode})`), operation.name).toBe(true);
    }
    // Each operation was reached past authentication, media type and validation at least once.
    expect(operations.filter((operation) => !reached.has(operation.name)).map((operation) => operation.name)).toEqual(
      [],
    );
  });

  afterAll(() => {
    // The spread of answers, for a reader checking what the fuzz reaches (LOG_FUZZ=1).
    if (!process.env.LOG_FUZZ) return;
    const lines = [...answers].map(
      ([key, byAnswer]) =>
        `${key}: ${[...byAnswer]
          .sort()
          .map(([answer, n]) => `${answer} x${n}`)
          .join(", ")}`,
    );
    process.stdout.write(`fuzz: ${sent} requests, seed ${SEED}\n${lines.sort().join("\n")}\n`);
  });
});
