/**
 * The soak of issue 16 (item 3), as code both `npm run bench -- soak` (scripts/bench/soak.ts) and the short
 * run in the test suite (tests/scripts/soak.test.ts) call: two web processes and two workers, started as production
 * starts them, on one PostgreSQL database and one Redis key prefix, under a mixed load for a while, then
 * drained and checked. docs/benchmarks.md describes the method and records the figures.
 *
 * - Shops: 3 loaded shops, each with a private key, its customers and catalogue at a stand-in of the
 *   platform's Admin API (imports look customers up there, the worker fetches product titles there), and
 *   webhook endpoints on loopback receivers: a steady one, one that fails 10% of attempts (500), one that
 *   takes 1-2 s per answer, and a second steady one on the slow receiver's shop. A 4th shop only serves
 *   the rate-limit probe.
 * - Load (open model: each kind is sent at its rate whatever the answers take, alternating between the web
 *   processes; a kind whose requests in flight reach a cap sheds instead, and the report counts it):
 *   storefront toggles and reads from `shoppers` shoppers (public key guests; app proxy guests and
 *   customers, signed as the platform signs), each shopper behind an address of its own as a load balancer
 *   reports it (TRUSTED_PROXY_HOPS=1), merchant reads with the private keys, and CSV imports through
 *   /v1/imports at even intervals.
 * - Rate limits: a probe drives the 4th shop's private key and one shopper past their limits across both
 *   web processes, a window at a time, and checks that exactly the limit is accepted in each window, every
 *   accepted request counting one unit of one shared counter.
 * - After the load: drained (outbox relayed, no delivery owed, queues idle, no import queued or running),
 *   then every event of every shop must have reached every endpoint of the shop (2xx answered) at least once.
 * - RSS of each of the 4 processes sampled from /proc; growth between the first and the last quarter of the
 *   load's second half.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync } from "node:fs";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { Agent } from "undici";
import { signedProxyPath } from "../../lib/app-proxy";
import { freePort } from "../../lib/net";
import type { StandInShop } from "../../../stand-in/demo-data";
import { standInGraphql, startFakeAdminApi } from "../../lib/fake-admin-api";
import {
  benchDatabase,
  benchSql,
  currentRssMb,
  seedLists,
  startAppServer,
  startChild,
  startWorker,
  stopChild,
  type BenchSql,
} from "../lib";
import { drive, pick, probeWindow, send, sleep, type Call, type Kind } from "./load";
import { RETRY_UNIT_MS, startReceiver, type Receiver } from "./receivers";
import { soakGoals, summariseRss } from "./report";
import type { ImportReport, KindResult, RateWindow, ReceiverReport, SoakOptions, SoakReport } from "./types";

const PRODUCTS_PER_SHOP = 30;
const TOGGLED_PRODUCTS = 20;
const BAD_ROWS_PER_IMPORT = 3;
const PRODUCTS_PER_IMPORTED_CUSTOMER = 10;
/** The flaky receiver fails an event at most this often, so the 4th attempt (about 24 retry units) gets it. */

// ---- shops, shoppers, platform ---------------------------------------------------------------------------

interface SoakShop {
  id: string;
  domain: string;
  publicKey: string;
  privateKey: string;
  standIn: StandInShop;
  products: Array<{ id: string; handle: string }>;
  listIds: string[];
}

type Mode = "public key" | "app proxy guest" | "app proxy customer";

interface Shopper {
  shop: SoakShop;
  mode: Mode;
  anonymousId: string;
  customerId: string;
  /** The shopper's own address, as the load balancer in front of the web processes reports it. */
  address: string;
}

const importCustomer = (importIndex: number, row: number) =>
  String(6_000_000 + importIndex * 10_000 + Math.floor(row / PRODUCTS_PER_IMPORTED_CUSTOMER));

function addressOf(shopIndex: number, index: number) {
  return `10.${shopIndex + 1}.${Math.floor(index / 250)}.${(index % 250) + 1}`;
}

// ---- the soak --------------------------------------------------------------------------------------------

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const progress = options.progress ?? (() => {});
  const duration = options.durationSeconds;
  const rssSampleMs = options.rssSampleMs ?? 2_000;
  mkdirSync(options.storageDir, { recursive: true });

  const receivers = await Promise.all([
    startReceiver("steady", "steady"),
    startReceiver("flaky", "flaky"),
    startReceiver("slow", "slow"),
    startReceiver("steady-2", "steady"),
  ]);
  const platform = await startFakeAdminApi();
  const webPorts = [await freePort(), await freePort()];
  const env: Record<string, string> = {
    DATABASE_URL: options.databaseUrl,
    REDIS_PREFIX: options.redisPrefix,
    STORAGE_DIR: options.storageDir,
    LOG_LEVEL: "warn",
    // Behind a load balancer, as deployed: one public URL for both web processes (signed upload URLs name it),
    // and the client address taken from the one proxy hop in front of them.
    SHOPIFY_APP_URL: `http://127.0.0.1:${webPorts[0]}`,
    TRUSTED_PROXY_HOPS: "1",
    SHOPIFY_ADMIN_API_ORIGIN: platform.origin,
    // Loopback receivers are development-only endpoints (docs/webhooks.md); a short retry unit so that the
    // failing receiver's retries end within the drain.
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
    WEBHOOK_RETRY_UNIT_MS: String(RETRY_UNIT_MS),
    RATE_LIMIT_PRIVATE_PER_MINUTE: String(options.privateRateLimit ?? 600),
  };
  Object.assign(process.env, env);

  // Shops through the app's services (as the other benchmarks); their platform sessions and seeded lists
  // with plain SQL on the driver.
  const { ensureShop } = await import("~/services/shops/shops.server");
  const { createApiKey } = await import("~/services/keys/api-keys.server");
  const { createEndpoint, SUBSCRIBABLE_EVENTS } = await import("~/services/webhooks/endpoints.server");
  const { closeDatabase } = await import("~/data/database.server");
  const sql = await benchSql(options.databaseUrl);
  const shops: SoakShop[] = [];
  const endpointsByShop = new Map<string, Receiver[]>();
  const wiring: Array<Receiver[]> = [[receivers[0]!], [receivers[1]!], [receivers[2]!, receivers[3]!], []];
  for (let index = 0; index < 4; index++) {
    const domain = `soak-${index + 1}.myshopify.com`;
    const shop = await ensureShop({ domain });
    const { secret } = await createApiKey({ shopId: shop.id, label: "soak" });
    for (const receiver of wiring[index]!) {
      const created = await createEndpoint({ shopId: shop.id, url: receiver.url, events: [...SUBSCRIBABLE_EVENTS] });
      receiver.secret = created.secret;
    }
    endpointsByShop.set(shop.id, wiring[index]!);
    const products = Array.from({ length: PRODUCTS_PER_SHOP }, (_, k) => ({
      id: String(8_300_000_000 + index * 1_000 + k),
      handle: `soak-${index + 1}-product-${k}`,
    }));
    const standIn: StandInShop = {
      domain,
      name: `Soak ${index + 1}`,
      accessToken: `shpat_soak_${index + 1}`,
      products: products.map((product, k) => ({ ...product, title: `Product ${k}`, price: "10.00", colour: "#999" })),
      customers: [],
      theme: { id: "gid://shopify/OnlineStoreTheme/1", name: "Dawn", blocks: {} },
    };
    await sql.run(
      `INSERT INTO "Session" ("id", "shop", "state", "isOnline", "accessToken", "accountOwner") VALUES (?, ?, '', ?, ?, ?)`,
      [`offline_${domain}`, domain, false, standIn.accessToken, false],
    );
    const listIds = index < 3 ? await seedLists(sql, shop.id, 20, 5) : [];
    shops.push({ id: shop.id, domain, publicKey: shop.publicKey, privateKey: secret, standIn, products, listIds });
  }
  await closeDatabase();
  const [limitsShop, ...loaded] = [shops[3]!, ...shops.slice(0, 3)];
  const byToken = new Map(shops.map((shop) => [shop.standIn.accessToken, shop.standIn]));
  platform.answer(async (call) => {
    const shop = byToken.get(call.accessToken ?? "");
    if (!shop) return { status: 401, body: { errors: "[API] Invalid API key or access token" } };
    return standInGraphql(shop)(call);
  });

  // Shoppers: half public key guests, a quarter app proxy guests, a quarter logged-in customers.
  const shoppers: Shopper[] = Array.from({ length: options.shoppers }, (_, index) => {
    const shopIndex = index % 3;
    const shop = loaded[shopIndex]!;
    const mode: Mode = index % 4 === 0 ? "app proxy customer" : index % 4 === 1 ? "app proxy guest" : "public key";
    const customerId = String(7_000_000 + index);
    if (mode === "app proxy customer") {
      shop.standIn.customers.push({ id: customerId, email: `c${index}@example.com`, firstName: "C", lastName: "S" });
    }
    return { shop, mode, anonymousId: randomUUID(), customerId, address: addressOf(shopIndex, index) };
  });
  const importShop = (importIndex: number) => loaded[importIndex % 3]!;
  for (let importIndex = 0; importIndex < options.imports; importIndex++) {
    const customers = new Set(Array.from({ length: options.importRows }, (_, row) => importCustomer(importIndex, row)));
    for (const id of customers) {
      importShop(importIndex).standIn.customers.push({
        id,
        email: `i${id}@example.com`,
        firstName: "I",
        lastName: "S",
      });
    }
  }

  // The processes, with the commands production runs (package.json `start` and `worker`).
  const children: Array<{ name: string; child: import("node:child_process").ChildProcess }> = [];
  const stopAll = async () => {
    await Promise.all(children.map(({ child }) => stopChild(child)));
  };
  // Never outlive the script, whatever ends it.
  const killAll = () => children.forEach(({ child }) => child.kill("SIGKILL"));
  process.once("exit", killAll);
  const agent = new Agent({ connections: 128, keepAliveTimeout: 10_000 });
  // The probe's connections of its own: its burst must not queue behind the load's requests in flight.
  const probeAgent = new Agent({ connections: 20, keepAliveTimeout: 10_000 });
  const queueRedis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { maxRetriesPerRequest: null });
  const { JOBS } = await import("~/jobs/definitions");
  const queues = [JOBS.webhookDelivery, JOBS.transfer, JOBS.productSnapshot, JOBS.metafieldSync].map(
    ({ queue: name }) => new Queue(name, { connection: queueRedis, prefix: `${options.redisPrefix}:bull` }),
  );
  let referenceDrop: (() => Promise<void>) | undefined;
  try {
    const webs: string[] = [];
    for (const [index, port] of webPorts.entries()) {
      const web = await startAppServer(env, port);
      children.push({ name: `web ${index + 1}`, child: web.child });
      webs.push(web.base);
    }
    for (let index = 0; index < 2; index++) {
      children.push({ name: `worker ${index + 1}`, child: await startWorker(env) });
    }
    progress(`4 processes up: web on ${webPorts.join(", ")}, 2 workers`);
    let turn = 0;
    const base = () => webs[turn++ % 2]!;

    // ---- the kinds of the mixed load -------------------------------------------------------------------
    const byMode = (mode: Mode) => shoppers.filter((shopper) => shopper.mode === mode);
    const modes: Array<[Mode, number]> = [
      ["public key", 0.5],
      ["app proxy guest", 0.25],
      ["app proxy customer", 0.25],
    ];
    const storefrontCall = (
      shopper: Shopper,
      method: "GET" | "POST",
      path: string,
      product?: SoakShop["products"][0],
    ) => {
      const body = product ? { productId: product.id, handle: product.handle } : undefined;
      if (shopper.mode === "public key") {
        return {
          url: `${base()}/v1/storefront/${path}${method === "GET" ? `?aid=${shopper.anonymousId}` : ""}`,
          method,
          headers: {
            "x-service-shop": shopper.shop.domain,
            "x-service-public-key": shopper.shop.publicKey,
            "x-forwarded-for": shopper.address,
            ...(body ? { "content-type": "application/json" } : {}),
          },
          body: body ? JSON.stringify({ ...body, anonymousId: shopper.anonymousId }) : undefined,
        } satisfies Call;
      }
      const customer = shopper.mode === "app proxy customer";
      return {
        url: `${base()}${signedProxyPath(`/proxy/v1/storefront/${path}`, {
          shop: shopper.shop.domain,
          logged_in_customer_id: customer ? shopper.customerId : "",
          ...(customer ? {} : { aid: shopper.anonymousId }),
        })}`,
        method,
        // The platform's servers forward the shopper's address; the load balancer adds the platform's.
        headers: {
          "x-forwarded-for": `${shopper.address}, 23.227.38.65`,
          ...(body ? { "content-type": "application/json" } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      } satisfies Call;
    };
    const merchant = (path: (shop: SoakShop) => string) => (): Call => {
      const shop = pick(loaded);
      return { url: `${base()}${path(shop)}`, method: "GET", headers: { authorization: `Bearer ${shop.privateKey}` } };
    };
    const kinds: Kind[] = [
      ...modes.map(([mode, share]) => ({
        name: `toggle, ${mode}`,
        rate: options.toggleRate * share,
        call: () => {
          const shopper = pick(byMode(mode));
          return storefrontCall(
            shopper,
            "POST",
            "wishlist/toggle",
            pick(shopper.shop.products.slice(0, TOGGLED_PRODUCTS)),
          );
        },
      })),
      ...modes.map(([mode, share]) => ({
        name: `wishlist read, ${mode}`,
        rate: options.storefrontReadRate * share,
        call: () => storefrontCall(pick(byMode(mode)), "GET", "wishlist"),
      })),
      { name: "GET /v1/shop", path: () => "/v1/shop" },
      { name: "GET /v1/lists", path: () => "/v1/lists?limit=50" },
      { name: "GET /v1/lists/{id}", path: (shop: SoakShop) => `/v1/lists/${pick(shop.listIds)}` },
      { name: "GET /v1/analytics/top-products", path: () => "/v1/analytics/top-products" },
      { name: "GET /v1/analytics/activity", path: () => "/v1/analytics/activity" },
    ].map((kind) =>
      "path" in kind ? { name: kind.name, rate: options.merchantReadRate / 5, call: merchant(kind.path) } : kind,
    );

    // ---- RSS samples --------------------------------------------------------------------------------------
    const rssSamples = children.map(({ name }) => ({ name, samples: [] as Array<{ t: number; mb: number }> }));
    const loadStarted = performance.now();
    const sampleRss = () => {
      const t = (performance.now() - loadStarted) / 1000;
      children.forEach(({ child }, index) => rssSamples[index]!.samples.push({ t, mb: currentRssMb(child.pid!) }));
    };
    sampleRss();
    const sampler = setInterval(sampleRss, rssSampleMs);

    // ---- imports at even intervals -------------------------------------------------------------------------
    const importResults: Array<Promise<ImportReport>> = [];
    const importTimers: NodeJS.Timeout[] = [];
    for (let importIndex = 0; importIndex < options.imports; importIndex++) {
      const at = ((importIndex + 0.5) / options.imports) * duration * 1000;
      importResults.push(
        new Promise<void>((resolve) => importTimers.push(setTimeout(resolve, at))).then(() =>
          runImport(agent, base, importShop(importIndex), importIndex, options, sql, options.drainTimeoutSeconds).catch(
            (error: unknown): ImportReport => ({
              shop: importShop(importIndex).domain,
              rows: options.importRows,
              imported: null,
              skipped: null,
              itemsFound: 0,
              status: `error: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`,
              seconds: 0,
              right: false,
            }),
          ),
        ),
      );
    }

    // ---- the rate-limit probe, a window at a time while the load runs ---------------------------------------
    const rateWindows: RateWindow[] = [];
    const probeShopper: Shopper = {
      shop: loaded[0]!,
      mode: "public key",
      anonymousId: randomUUID(),
      customerId: "",
      address: "10.200.0.1",
    };
    const privateLimit = options.privateRateLimit ?? 600;
    const shopperLimit = 60;
    // Windows go on while the load runs, and after it (at most 5 in all) until each bucket had a conclusive one.
    const conclusive = (bucket: string) => rateWindows.some((w) => w.bucket === bucket && w.exact !== null);
    const probeMore = (wait: number) =>
      (performance.now() - loadStarted) / 1000 + wait / 1000 < duration - 15 ||
      (rateWindows.length < 10 && !(conclusive("shop") && conclusive("shopper")));
    const probe = (async () => {
      await sleep(2_000);
      for (;;) {
        const windows = await Promise.all([
          probeWindow(probeAgent, "shop", privateLimit, Math.ceil(privateLimit * 1.1), () => ({
            url: `${base()}/v1/shop`,
            method: "GET",
            headers: { authorization: `Bearer ${limitsShop.privateKey}` },
          })),
          probeWindow(probeAgent, "shopper", shopperLimit, shopperLimit + 15, () =>
            storefrontCall(probeShopper, "GET", "wishlist"),
          ),
        ]);
        rateWindows.push(...windows.map(({ retryAfter: _, ...window }) => window));
        progress(
          `rate-limit window: ${windows.map((w) => `${w.bucket} ${w.accepted}/${w.sent} accepted, ${w.other} other, exact ${w.exact}`).join("; ")}`,
        );
        // The next window starts once both counters have expired.
        const wait = (Math.max(...windows.map((window) => window.retryAfter)) + 1.5) * 1000;
        if (!probeMore(wait)) break;
        await sleep(wait);
      }
    })();

    progress(`mixed load for ${duration} s`);
    const kindResults = await drive(agent, kinds, duration);
    clearInterval(sampler);
    await probe;
    progress("load over; waiting for the imports and the drain");

    // ---- drain ------------------------------------------------------------------------------------------------
    const drainStarted = performance.now();
    const imports = await Promise.all(importResults);
    let drainSeconds: number | null = null;
    let owedWhileIdle = 0;
    let state = "";
    let polls = 0;
    while ((performance.now() - drainStarted) / 1000 < options.drainTimeoutSeconds) {
      const [row] = await sql.all<{ pending: number; due: number; jobs: number }>(
        `SELECT (SELECT COUNT(*) FROM "Event" WHERE "dispatchedAt" IS NULL) AS "pending", ` +
          `(SELECT COUNT(*) FROM "WebhookDeliveryDue") AS "due", ` +
          `(SELECT COUNT(*) FROM "TransferJob" WHERE "status" IN ('queued', 'running')) AS "jobs"`,
      );
      const counts = await Promise.all(
        queues.map((queue) => queue.getJobCounts("active", "waiting", "delayed", "prioritized", "waiting-children")),
      );
      const queued = counts.reduce((sum, count) => sum + Object.values(count).reduce((a, b) => a + b, 0), 0);
      state =
        `outbox ${row!.pending}, deliveries owed ${row!.due}, jobs unfinished ${row!.jobs}, queued ` +
        counts.map((count, index) => `${queues[index]!.name} ${JSON.stringify(count)}`).join(" ");
      if (Number(row!.pending) + Number(row!.due) + Number(row!.jobs) + queued === 0) {
        drainSeconds = (performance.now() - drainStarted) / 1000;
        break;
      }
      if (queued === 0 && Number(row!.pending) === 0) owedWhileIdle = Math.max(owedWhileIdle, Number(row!.due));
      if (++polls % 10 === 0) progress(`draining: ${state}`);
      if (polls === 5 && queued === 0 && Number(row!.due) > 0) progress(await owedWithoutJobs(sql, queues[0]!));
      await sleep(1_000);
    }
    progress(drainSeconds === null ? `not drained: ${state}` : `drained in ${drainSeconds.toFixed(1)} s`);

    // ---- checks ------------------------------------------------------------------------------------------------
    const events = await sql.all<{ id: string; shopId: string }>(`SELECT "id", "shopId" FROM "Event"`);
    const receiverReports: ReceiverReport[] = [];
    for (const shop of loaded) {
      const ids = events.filter((event) => event.shopId === shop.id).map((event) => event.id);
      for (const receiver of endpointsByShop.get(shop.id)!) {
        let duplicates = 0;
        for (const count of receiver.delivered.values()) duplicates += Math.max(0, count - 1);
        receiverReports.push({
          name: receiver.name,
          behaviour: receiver.behaviour,
          shop: shop.domain,
          events: ids.length,
          received: ids.filter((id) => receiver.delivered.has(id)).length,
          missing: ids.filter((id) => !receiver.delivered.has(id)).length,
          attempts: receiver.attempts,
          failuresInjected: receiver.failuresInjected,
          duplicates,
          badSignatures: receiver.badSignatures,
        });
      }
    }
    const [{ unfinished }] = (await sql.all<{ unfinished: number }>(
      `SELECT COUNT(*) AS "unfinished" FROM "TransferJob" WHERE "status" IN ('queued', 'running')`,
    )) as [{ unfinished: number }];

    const rss = rssSamples.map(({ name, samples }) => summariseRss(name, samples, duration));

    // ---- baseline: the bare references at the same rates ------------------------------------------------------
    await stopAll();
    children.length = 0;
    let baseline: KindResult[] = [];
    if (options.baselineSeconds) {
      progress(`baseline: the bare references at the same rates for ${options.baselineSeconds} s`);
      baseline = await runBaseline(agent, options, loaded[0]!, shoppers, (drop) => (referenceDrop = drop));
    }

    const goals = soakGoals({
      kinds: kindResults,
      rateWindows,
      receivers: receiverReports,
      events: events.length,
      imports,
      drainSeconds,
      owedWhileIdle,
      unfinishedJobs: Number(unfinished),
      rss,
    });
    const { progress: _, ...reportedOptions } = options;
    return {
      options: reportedOptions,
      kinds: kindResults,
      baseline,
      rateWindows,
      receivers: receiverReports,
      events: events.length,
      imports,
      drainSeconds,
      owedWhileIdle,
      unfinishedJobs: Number(unfinished),
      rss,
      goals,
    };
  } finally {
    await stopAll();
    process.off("exit", killAll);
    await Promise.all(queues.map((queue) => queue.close()));
    queueRedis.disconnect();
    await Promise.all([agent.close(), probeAgent.close()]);
    await sql.close();
    await platform.close();
    for (const receiver of receivers) {
      receiver.server.closeAllConnections();
      receiver.server.close();
    }
    await referenceDrop?.();
    rmSync(options.storageDir, { recursive: true, force: true });
  }
}

/**
 * What the database owes that the queue does not hold: a few owed deliveries with their BullMQ job's state
 * (the job id is `<event id>-<endpoint id>`, app/jobs/definitions.ts) and the attempts logged for them.
 */
async function owedWithoutJobs(sql: BenchSql, webhooks: Queue): Promise<string> {
  const owed = await sql.all<{ eventId: string; endpointId: string; attemptsMade: number; dueAt: Date }>(
    `SELECT "eventId", "endpointId", "attemptsMade", "dueAt" FROM "WebhookDeliveryDue" ORDER BY "dueAt" LIMIT 3`,
  );
  const [{ n }] = (await sql.all<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "WebhookDeliveryDue"`)) as [{ n: number }];
  const lines = [`${n} deliveries owed while the queues are idle; the first ones:`];
  for (const due of owed) {
    const job = await webhooks.getJob(`${due.eventId}-${due.endpointId}`);
    const attempts = await sql.all<{ attempt: number; status: string; statusCode: number | null; createdAt: Date }>(
      `SELECT "attempt", "status", "statusCode", "createdAt" FROM "WebhookDelivery" WHERE "eventId" = ? AND "endpointId" = ? ORDER BY "attempt"`,
      [due.eventId, due.endpointId],
    );
    lines.push(
      `  ${due.eventId} -> ${due.endpointId}: attemptsMade ${due.attemptsMade}, dueAt ${new Date(due.dueAt).toISOString()}, ` +
        `job ${job ? `${await job.getState()} (attemptsMade ${job.attemptsMade}, finishedOn ${job.finishedOn ? new Date(job.finishedOn).toISOString() : "-"}, failedReason ${job.failedReason ?? "-"}, returned ${JSON.stringify(job.returnvalue)})` : "absent"}, ` +
        `logged attempts ${JSON.stringify(attempts)}`,
    );
  }
  return lines.join("\n");
}

/** One CSV import through /v1/imports (upload URL, PUT, job), polled until it ends; then its items counted. */
async function runImport(
  agent: Agent,
  base: () => string,
  shop: SoakShop,
  importIndex: number,
  options: SoakOptions,
  sql: BenchSql,
  timeoutSeconds: number,
): Promise<ImportReport> {
  const started = performance.now();
  const auth = { authorization: `Bearer ${shop.privateKey}` };
  // As a merchant's client would: a 5xx, a 429 or a lost connection is asked again a few times (the POSTs
  // with the same Idempotency-Key, so a retry never starts a second import).
  const json = async <T>(call: Call, status: number): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      const outcome = await send(agent, call).then(
        async (response) => ({ status: response.statusCode, text: await response.body.text() }),
        (error: unknown) => ({ status: 0, text: String(error) }),
      );
      if (outcome.status === status) return (outcome.text ? JSON.parse(outcome.text) : null) as T;
      const transient = outcome.status === 0 || outcome.status === 429 || outcome.status >= 500;
      if (!transient || attempt === 5) {
        throw new Error(`${call.method} ${call.url}: ${outcome.status} ${outcome.text} (attempt ${attempt})`);
      }
      await sleep(2_000 * attempt);
    }
  };
  const lines = ["customer_id,anonymous_id,product_id,variant_id,handle,added_at"];
  for (let row = 0; row < options.importRows; row++) {
    const product = shop.products[row % PRODUCTS_PER_IMPORTED_CUSTOMER]!;
    lines.push(`${importCustomer(importIndex, row)},,${product.id},,${product.handle},2026-01-05T10:00:00.000Z`);
  }
  for (let bad = 0; bad < BAD_ROWS_PER_IMPORT; bad++) {
    lines.push(`${importCustomer(importIndex, 0)},,not-a-product-${bad},,bad,2026-01-05T10:00:00.000Z`);
  }
  const target = await json<{ uploadUrl: string; headers: Record<string, string>; fileUrl: string }>(
    {
      url: `${base()}/v1/imports/upload`,
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ filename: `soak-${importIndex}.csv`, contentType: "text/csv" }),
    },
    201,
  );
  await json({ url: target.uploadUrl, method: "PUT", headers: target.headers, body: `${lines.join("\r\n")}\r\n` }, 200);
  const { jobId } = await json<{ jobId: string }>(
    {
      url: `${base()}/v1/imports`,
      method: "POST",
      headers: { ...auth, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ source: "csv", fileUrl: target.fileUrl, dryRun: false }),
    },
    202,
  );
  let job: { status: string; imported: number | null; skipped: number | null } = {
    status: "queued",
    imported: null,
    skipped: null,
  };
  while ((performance.now() - started) / 1000 < options.durationSeconds + timeoutSeconds) {
    job = await json({ url: `${base()}/v1/imports/${jobId}`, method: "GET", headers: auth }, 200);
    if (job.status === "succeeded" || job.status === "failed") break;
    await sleep(1_000);
  }
  const seconds = (performance.now() - started) / 1000;
  const customers = [
    ...new Set(Array.from({ length: options.importRows }, (_, row) => importCustomer(importIndex, row))),
  ];
  const [{ n }] = (await sql.all<{ n: number }>(
    `SELECT COUNT(*) AS "n" FROM "Item" i JOIN "List" l ON l."id" = i."listId" WHERE l."shopId" = ? ` +
      `AND l."customerId" IN (${customers.map(() => "?").join(", ")})`,
    [shop.id, ...customers],
  )) as [{ n: number }];
  return {
    shop: shop.domain,
    rows: options.importRows,
    imported: job.imported,
    skipped: job.skipped,
    itemsFound: Number(n),
    status: job.status,
    seconds,
    right:
      job.status === "succeeded" &&
      job.imported === options.importRows &&
      job.skipped === BAD_ROWS_PER_IMPORT &&
      Number(n) === options.importRows,
  };
}

/**
 * The bare references of the other benchmarks at the soak's rates, both at once: storefront-reference.ts
 * (toggle and read, public key, on a database of its own) and api-reference.ts (the merchant reads it serves,
 * on the soak's database, which it only reads).
 */
async function runBaseline(
  agent: Agent,
  options: SoakOptions,
  shop: SoakShop,
  shoppers: Shopper[],
  onDatabase: (drop: () => Promise<void>) => void,
): Promise<KindResult[]> {
  const referenceDatabase = await benchDatabase("postgres", "soak_reference");
  onDatabase(referenceDatabase.drop);
  const [storefrontPort, apiPort] = [await freePort(), await freePort()];
  const storefront = await startChild(
    "scripts/bench/storefront-reference.ts",
    [referenceDatabase.url, String(storefrontPort), shop.id, shop.domain, shop.publicKey],
    {},
    `http://127.0.0.1:${storefrontPort}/healthz`,
  );
  const api = await startChild(
    "scripts/bench/api-reference.ts",
    [options.databaseUrl, String(apiPort)],
    {},
    `http://127.0.0.1:${apiPort}/healthz`,
  ).catch(async (error: unknown) => {
    await stopChild(storefront);
    throw error;
  });
  try {
    const headers = { "x-service-shop": shop.domain, "x-service-public-key": shop.publicKey };
    const guest = () => pick(shoppers).anonymousId;
    const auth = { authorization: `Bearer ${shop.privateKey}` };
    return await drive(
      agent,
      [
        {
          name: "toggle",
          rate: options.toggleRate,
          call: () => {
            const product = pick(shop.products.slice(0, TOGGLED_PRODUCTS));
            return {
              url: `http://127.0.0.1:${storefrontPort}/toggle`,
              method: "POST",
              headers: { ...headers, "content-type": "application/json" },
              body: JSON.stringify({ productId: product.id, handle: product.handle, anonymousId: guest() }),
            };
          },
        },
        {
          name: "wishlist read",
          rate: options.storefrontReadRate,
          call: () => ({ url: `http://127.0.0.1:${storefrontPort}/wishlist?aid=${guest()}`, method: "GET", headers }),
        },
        ...[
          ["GET /v1/shop", () => "/v1/shop"],
          ["GET /v1/lists", () => "/v1/lists?limit=50"],
          ["GET /v1/lists/{id}", () => `/v1/lists/${pick(shop.listIds)}`],
        ].map(([name, path]) => ({
          name: name as string,
          rate: options.merchantReadRate / 5,
          call: (): Call => ({
            url: `http://127.0.0.1:${apiPort}${(path as () => string)()}`,
            method: "GET",
            headers: auth,
          }),
        })),
      ],
      options.baselineSeconds!,
    );
  } finally {
    await Promise.all([stopChild(storefront), stopChild(api)]);
  }
}
