/**
 * `npm run bench -- alerts [--engine sqlite|postgres] [--customers 100000] [--send 10000|all] [--worker-flags "..."]`
 * (issue 29)
 *
 * One product saved by `--customers` customers comes back in stock. One shop; each customer (a 13-digit id,
 * known to the platform stand-in, email marketing SUBSCRIBED) has saved the same sold-out product, seeded
 * in bulk through the data layer; the first reading of the product is run once (so the catalogue reading
 * exists and every item has its price seen). Then the real web process and worker run against the platform
 * stand-in and its mailbox (a real SMTP server, in this process), the shop's email alerts are switched on
 * with pacing at its maximum (10,000 a minute), and the stand-in restocks the product as a merchant does:
 * the signed products/update and inventory_levels/update webhooks.
 *
 * Measured:
 * 1. Queueing: from the webhooks' 200 to the last Alert and AlertMessage row written (the database polled
 *    every 100 ms), the worker's CPU time meanwhile.
 * 2. Sending: messages the mailbox received per second (its count, polled every 50 ms), from the first to
 *    the `--send`th (default: 10,000, one minute of the maximum pace, which the pacing lets go at once; `all`
 *    waits for every message, at least customers / 10,000 minutes). Reference, same run, same mailbox: a bare
 *    nodemailer loop in a process of its own (scripts/bench/alerts-reference.ts), pooled as the sender is
 *    (4 connections, 4 sends at a time), sending one alert email rendered with the app's template as many
 *    times, to the same addresses.
 * 3. The worker's peak RSS (VmHWM), and its RSS sampled every 250 ms (which phase peaks). The worker runs
 *    with the memory flags it ships with (scripts/lib/processes.ts, WORKER_NODE_FLAGS); `--worker-flags`
 *    replaces them (`--worker-flags none`: V8's defaults; `--worker-flags "--max-old-space-size=256"`).
 * Goals (issue 29): all alerts queued within 30 s; sending at >= 0.5x the bare loop; worker RSS <= 256 MB.
 * ALERT_GATHER_MS stays at its default (20 s): sending starts 20 s after the alerts are made, or during the
 * queueing when that takes longer. The mailbox keeps only its last 50 messages (it counts them all), so its
 * memory stays flat; parsing each message costs this process's CPU in both measures alike.
 */
import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { startMailbox } from "../../stand-in/mailbox";
import { WORKER_NODE_FLAGS } from "../lib/processes";
import {
  benchDatabase,
  benchSql,
  freePort,
  peakRssMb,
  percentile,
  ROOT,
  startAppServer,
  startWorker,
  stopChild,
} from "./lib";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    engine: { type: "string", default: "sqlite" },
    customers: { type: "string", default: "100000" },
    send: { type: "string", default: "10000" },
    /** V8 old-space cap for the worker (--max-old-space-size), as a memory-limited container would set. */
    "worker-flags": { type: "string" },
  },
  allowPositionals: true,
});
const engine = values.engine === "postgres" ? "postgres" : "sqlite";
const customers = Number(values.customers);
const sendTarget = values.send === "all" ? customers : Math.min(customers, Number(values.send));
if (!Number.isInteger(customers) || customers < 1 || !Number.isInteger(sendTarget) || sendTarget < 1) {
  process.stderr.write("--customers and --send take whole numbers (--send also takes all)\n");
  process.exit(2);
}
const GOALS = { queuedSeconds: 30, sendRatio: 0.5, workerRssMb: 256 };
const CONCURRENCY = 4; // the sender's sends at a time and its pool's connections (app/services/alerts)
const RATE_PER_MINUTE = 10_000; // the most alertSettingsSchema allows
const DOMAIN = "bench-alerts.myshopify.com";
const ACCESS_TOKEN = "shpat_bench_alerts";
/** The demo catalogue's tote: one variant, sold out. */
const PRODUCT = { productId: "8100000008", variantId: "9100000008", handle: "pebble-canvas-tote" };
const customerId = (index: number) => String(7_000_000_000_000 + index + 1);
const emailOf = (id: string) => `customer-${id}@bench.example`;

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const met = (ok: boolean) => (ok ? "met" : "**missed**");
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A process's CPU time so far (user + system), in seconds. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** What to undo, last first, at the end or when the run fails half-way (no database may be left behind). */
const cleanups: Array<() => Promise<unknown>> = [];
async function cleanUp() {
  for (const undo of cleanups.splice(0).reverse()) await undo().catch(() => undefined);
}
process.on("uncaughtException", (error) => {
  process.stderr.write(`${error.stack ?? String(error)}\n`);
  void cleanUp().finally(() => process.exit(1));
});

const mailbox = await startMailbox({ port: 0, keep: 50 });
cleanups.push(() => mailbox.close());
const appPort = await freePort();
const standInPort = await freePort();
const appUrl = `http://127.0.0.1:${appPort}`;
const database = await benchDatabase(engine, "alerts");
cleanups.push(() => database.drop());
const env = {
  DATABASE_URL: database.url,
  REDIS_PREFIX: `bench-alerts:${process.pid}`,
  LOG_LEVEL: "warn",
  SHOPIFY_APP_URL: appUrl,
  SHOPIFY_ADMIN_API_ORIGIN: `http://127.0.0.1:${standInPort}`,
  // The mailbox is on loopback: the SMTP host rule allows it only inside these networks.
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
};
Object.assign(process.env, env);

const { database: db, closeDatabase, transaction } = await import("~/data/database.server");
const { ensureShop } = await import("~/services/shops/shops.server");
const { upsertSession } = await import("~/data/session-rows.server");
const { insertDefaultLists, findDefaultLists } = await import("~/data/list-rows.server");
const { insertItems } = await import("~/data/item-rows.server");
const { findCatalogueVariants, requestProductRefresh } = await import("~/data/catalogue-rows.server");
const { updateAlertSettingsText } = await import("~/data/shop-rows.server");
const { updatePlanColumns } = await import("~/data/plan-rows.server");
const { alertSettingsSchema } = await import("~/services/alerts/alert-settings");
const { runAlertRefresh } = await import("~/services/alerts/refresh.server");
const { renderAlertEmail } = await import("~/services/alerts/email-template");
const { clickUrl, unsubscribeUrl } = await import("~/services/alerts/links.server");
const { newId } = await import("~/lib/ids");
const { getEnv } = await import("~/env.server");
const { demoShopData } = await import("../../stand-in/demo-data");
const { startPlatformStandIn } = await import("../../stand-in/platform");

// The platform: the demo catalogue, and the shop's customers, every one subscribed to email marketing.
const standInShop = demoShopData({ domain: DOMAIN, accessToken: ACCESS_TOKEN });
standInShop.customers = Array.from({ length: customers }, (_, index) => {
  const id = customerId(index);
  return { id, email: emailOf(id), firstName: `Shopper${index + 1}`, lastName: "Bench", locale: "en" };
});
for (const customer of standInShop.customers) customer.marketingState = "SUBSCRIBED";
const platform = await startPlatformStandIn({
  appUrl,
  apiKey: getEnv().SHOPIFY_API_KEY,
  apiSecret: getEnv().SHOPIFY_API_SECRET,
  appHandle: getEnv().SHOPIFY_APP_HANDLE,
  scopes: getEnv().SCOPES,
  shops: [standInShop],
  port: standInPort,
});
cleanups.push(() => platform.close());

// The shop, installed (an offline token the stand-in knows), and its customers' saves, in bulk.
const shop = await ensureShop({ domain: DOMAIN });
await upsertSession(db(), {
  id: `offline_${DOMAIN}`,
  shop: DOMAIN,
  state: "",
  isOnline: false,
  scope: getEnv().SCOPES,
  expires: null,
  accessToken: ACCESS_TOKEN,
  userId: null,
  firstName: null,
  lastName: null,
  email: null,
  accountOwner: false,
  locale: null,
  collaborator: false,
  emailVerified: false,
  refreshToken: null,
  refreshTokenExpires: null,
});
const seedStarted = performance.now();
const SEED_CHUNK = 500;
for (let start = 0; start < customers; start += SEED_CHUNK) {
  const owners = Array.from({ length: Math.min(SEED_CHUNK, customers - start) }, (_, n) => customerId(start + n));
  await transaction(async (tx) => {
    const now = new Date();
    await insertDefaultLists(tx, shop.id, "customerId", owners, now);
    const lists = await findDefaultLists(tx, shop.id, "customerId", owners);
    await insertItems(
      tx,
      shop.id,
      lists.map((list, n) => ({
        listId: list.id,
        productId: PRODUCT.productId,
        variantId: PRODUCT.variantId,
        handle: PRODUCT.handle,
        titleSnapshot: "Pebble Canvas Tote",
        // Saved over the last 30 days.
        addedAt: new Date(now.getTime() - ((start + n) % 30) * 86_400_000),
      })),
    );
  });
}
const sql = await benchSql(database.url);
cleanups.push(() => sql.close());
// A shop that grew to this size has statistics on its tables (autovacuum); a bulk load leaves none.
if (engine === "postgres") await sql.run(`ANALYZE "List", "Item"`);
const seedMs = performance.now() - seedStarted;

// The first reading (as a save's product lookup asks for it): the catalogue reading exists, prices seen.
const firstReadingStarted = performance.now();
await requestProductRefresh(db(), shop.id, [PRODUCT.productId], new Date());
const firstRun = await runAlertRefresh({ shopId: shop.id });
const firstReadingMs = performance.now() - firstReadingStarted;
const [reading] = await findCatalogueVariants(db(), shop.id, [PRODUCT.productId]);
if (firstRun.read !== 1 || reading?.available !== false)
  throw new Error("the first reading did not find the product sold out");

// The shop's alert emails: on, to the mailbox, paced at the most the settings allow.
const settings = alertSettingsSchema.parse({
  email: {
    enabled: true,
    fromName: "Bench Shop",
    fromAddress: "wishlist@bench-shop.example",
    ratePerMinute: RATE_PER_MINUTE,
    smtp: { host: "127.0.0.1", port: mailbox.port, security: "none" },
  },
});
await updateAlertSettingsText(db(), shop.id, JSON.stringify(settings), new Date());
// On the Plus plan: its 50,000 alert emails a month cover the measured 10,000, each taking its unit as in any
// shop (decision 062); `--send all` holds the emails past 50,000 for the next month.
await updatePlanColumns(db(), shop.id, { plan: "PLUS", planUpdatedAt: new Date() });

// The email the reference sends: one alert rendered by the app's template for the first customer, with
// links signed as the sender signs them (ids of the same length as real ones).
const messageId = newId("alertMessage");
const unsubscribe = unsubscribeUrl({ shopId: shop.id, customerId: customerId(0), locale: "en" });
const email = await renderAlertEmail({
  locale: "en",
  shopName: settings.email.fromName,
  shopUrl: `https://${DOMAIN}`,
  customerFirstName: "Shopper1",
  unsubscribeUrl: unsubscribe,
  items: [
    {
      kind: "back_in_stock",
      title: "Pebble Canvas Tote",
      variantTitle: reading.title,
      imageUrl: reading.imageUrl,
      productUrl: clickUrl({
        shopDomain: DOMAIN,
        shopId: shop.id,
        messageId,
        alertId: newId("alert"),
        handle: PRODUCT.handle,
      }),
      currency: reading.currency,
      oldPriceMinor: null,
      newPriceMinor: reading.priceMinor,
      quantity: null,
    },
  ],
});
await closeDatabase();

const count = async (table: "Alert" | "AlertMessage") =>
  Number((await sql.all<{ n: number }>(`SELECT COUNT(*) AS "n" FROM "${table}" WHERE "shopId" = ?`, [shop.id]))[0]!.n);

// The measured part: the real web process and worker, the restock, the alerts queued, the emails sent.
const server = await startAppServer(env, appPort);
const workerFlags =
  values["worker-flags"] === undefined
    ? [...WORKER_NODE_FLAGS]
    : values["worker-flags"].split(/\s+/).filter((flag) => flag && flag !== "none");
const worker = await startWorker(env, { workerFlags });
const workerPid = worker.pid!;
cleanups.push(
  () => stopChild(worker),
  () => stopChild(server.child),
);
const workerAlive = () => {
  if (worker.exitCode !== null || worker.signalCode !== null) {
    throw new Error(`the worker stopped (${worker.exitCode ?? worker.signalCode}) before the measure ended`);
  }
};
const rssSamples: Array<{ at: number; mb: number }> = [];
const rssTimer = setInterval(() => {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${workerPid}/status`, "utf8"))?.[1] ?? 0);
    rssSamples.push({ at: performance.now(), mb: Math.round(kb / 1024) });
  } catch {
    // the worker has stopped
  }
}, 250);
let result: {
  webhookMs: number;
  answeredAt: number;
  queuedMs: number;
  queuedCpu: number;
  progress: Array<[number, number]>;
  firstSendMs: number;
  sendSeconds: number;
  perSecond: number[];
  sendCpu: number;
  benchCpu: number;
  workerPeakMb: number;
  startRssMb: number;
  states: Array<{ state: string; n: number }>;
};
try {
  const startRssMb = peakRssMb(workerPid);
  mailbox.clear();
  const cpuAtStart = cpuSeconds(workerPid);
  const sendStarted = performance.now();
  const sent = await platform.updateVariant(DOMAIN, PRODUCT.variantId, { inventoryQuantity: 100 });
  const answered = performance.now();
  if (sent.some((webhook) => webhook.status !== 200)) {
    throw new Error(`webhooks answered ${sent.map((webhook) => webhook.status).join(", ")}`);
  }

  // 1. Queueing: every alert and its message written.
  const progress: Array<[number, number]> = [];
  const bound = answered + 15 * 60_000;
  let queued = 0;
  for (;;) {
    const [alerts, messages] = [await count("Alert"), await count("AlertMessage")];
    progress.push([performance.now() - answered, alerts]);
    if (alerts >= customers && messages >= customers) {
      queued = performance.now();
      break;
    }
    workerAlive();
    if (performance.now() > bound) throw new Error(`${alerts} alerts and ${messages} messages after 15 minutes`);
    await wait(100);
  }
  const queuedCpu = cpuSeconds(workerPid) - cpuAtStart;

  // 2. Sending: the mailbox's count until it has the measured number.
  const arrivals: Array<[number, number]> = [];
  let firstAt = 0;
  let sendCpuStart = 0;
  let benchCpuStart = process.cpuUsage();
  while (mailbox.received() < sendTarget) {
    const received = mailbox.received();
    if (received > 0) {
      if (!firstAt) {
        firstAt = performance.now();
        sendCpuStart = cpuSeconds(workerPid);
        benchCpuStart = process.cpuUsage();
      }
      arrivals.push([performance.now(), received]);
    }
    workerAlive();
    if (performance.now() > bound + 30 * 60_000) throw new Error(`${received} emails received after 45 minutes`);
    await wait(50);
  }
  const lastAt = performance.now();
  const sendCpu = cpuSeconds(workerPid) - sendCpuStart;
  const benchCpu = process.cpuUsage(benchCpuStart);
  firstAt ||= lastAt;
  const firstReceived = arrivals[0]?.[1] ?? 0;
  const perSecond: number[] = [];
  for (let second = firstAt; second + 1000 <= lastAt; second += 1000) {
    const at = (t: number) => arrivals.findLast(([when]) => when <= t)?.[1] ?? firstReceived;
    perSecond.push(at(second + 1000) - at(second));
  }
  const workerPeakMb = peakRssMb(workerPid);
  const sendSeconds = (lastAt - firstAt) / 1000;
  const states = await sql.all<{ state: string; n: number }>(
    `SELECT "state", COUNT(*) AS "n" FROM "AlertMessage" WHERE "shopId" = ? GROUP BY "state" ORDER BY "state"`,
    [shop.id],
  );
  result = {
    webhookMs: answered - sendStarted,
    answeredAt: answered,
    queuedMs: queued - answered,
    queuedCpu,
    progress,
    firstSendMs: firstAt - answered,
    sendSeconds,
    perSecond,
    sendCpu,
    benchCpu: (benchCpu.user + benchCpu.system) / 1e6,
    workerPeakMb,
    startRssMb,
    states: states.map((row) => ({ state: row.state, n: Number(row.n) })),
  };
} finally {
  clearInterval(rssTimer);
  // The worker closes once its sender run hands back (at most 20 s): a profile needs it to exit by itself.
  await Promise.all([stopChild(worker, 60_000), stopChild(server.child)]);
}
const appMessageBytes = mailbox.messages().map((message) => message.size);
const appReceived = sendTarget - 1; // from the first message received to the measured one
const appRate = appReceived / Math.max(result.sendSeconds, 0.001);
// Printed before the reference runs: a long run's figures survive a reference that fails.
process.stdout.write(
  `App: all ${customers} alerts queued ${seconds(result.queuedMs)} s after the webhooks' 200; ${sendTarget} ` +
    `emails, ${appRate.toFixed(0)} a second over ${result.sendSeconds.toFixed(1)} s; worker peak RSS ` +
    `${result.workerPeakMb} MB.\n`,
);

// The reference: a bare nodemailer loop in a process of its own, the same number of messages, same mailbox.
mailbox.clear();
const jobFile = path.join(database.workDir, `alerts-reference-${process.pid}.json`);
writeFileSync(
  jobFile,
  JSON.stringify({
    port: mailbox.port,
    recipients: Array.from({ length: sendTarget }, (_, index) => emailOf(customerId(index))),
    concurrency: CONCURRENCY,
    from: { name: settings.email.fromName, address: settings.email.fromAddress },
    subject: email.subject,
    html: email.html,
    text: email.text,
    unsubscribeUrl: unsubscribe,
    messageHost: new URL(unsubscribe).hostname,
  }),
);
const referenceStarted = performance.now();
const referenceBenchCpuStart = process.cpuUsage();
const reference = await new Promise<{
  sent: number;
  seconds: number;
  p50: number;
  p99: number;
  max: number;
  peakRssMb: number;
}>((resolve, reject) => {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/bench/alerts-reference.ts", jobFile], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  cleanups.push(async () => child.kill("SIGKILL"));
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.once("exit", (code, signal) => {
    const line = /^RESULT (.*)$/m.exec(output)?.[1];
    if (code === 0 && line) resolve(JSON.parse(line));
    else reject(new Error(`the reference exited with ${code ?? signal}: ${output}`));
  });
});
const referenceWallMs = performance.now() - referenceStarted;
const referenceBenchCpu = process.cpuUsage(referenceBenchCpuStart);
const referenceReceived = mailbox.received();
const referenceBytes = mailbox.messages().map((message) => message.size);
rmSync(jobFile, { force: true });
const referenceRate = (reference.sent - 1) / Math.max(reference.seconds, 0.001);

await cleanUp();

// The report.
const ratio = appRate / referenceRate;
const mean = (values: number[]) =>
  Math.round(values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1));
const sortedSeconds = [...result.perSecond].sort((a, b) => a - b);
const peakSample = rssSamples.reduce((top, sample) => (sample.mb > top.mb ? sample : top), { at: 0, mb: 0 });
const half = result.progress.find(([, alerts]) => alerts >= customers / 2)?.[0] ?? Number.NaN;
const queuedSeconds = result.queuedMs / 1000;
const paced = customers / RATE_PER_MINUTE;
process.stdout.write(
  `\nAlerts benchmark, ${engine}, ${customers.toLocaleString("en")} customers, ${sendTarget.toLocaleString("en")} ` +
    `emails measured, Node ${process.version}` +
    `, worker flags: ${workerFlags.length > 0 ? workerFlags.join(" ") : "none (V8's defaults)"}.\n\n` +
    `| Measure | app | reference | ratio | goal |\n|---|---|---|---|---|\n` +
    `| restock to all alerts queued (from the webhooks' 200) | ${seconds(result.queuedMs)} s | | | ` +
    `<= ${GOALS.queuedSeconds} s: ${met(queuedSeconds <= GOALS.queuedSeconds)} |\n` +
    `| emails received per second | ${appRate.toFixed(0)} (${result.sendSeconds.toFixed(1)} s) | ` +
    `${referenceRate.toFixed(0)} (${reference.seconds.toFixed(1)} s) | ${ratio.toFixed(2)}x | ` +
    `>= ${GOALS.sendRatio}x: ${met(ratio >= GOALS.sendRatio)} |\n` +
    `| worker peak RSS (VmHWM) | ${result.workerPeakMb} MB | ${reference.peakRssMb} MB (the loop's process) | | ` +
    `<= ${GOALS.workerRssMb} MB: ${met(result.workerPeakMb <= GOALS.workerRssMb)} |\n\n` +
    `Seeding ${customers} lists and items through the data layer: ${seconds(seedMs)} s; the first reading ` +
    `(in this process): ${seconds(firstReadingMs)} s. Webhooks sent and answered (products/update, ` +
    `inventory_levels/update): ${result.webhookMs.toFixed(0)} ms.\n` +
    `Queueing: half the alerts at ${seconds(half)} s, all at ${seconds(result.queuedMs)} s; worker CPU meanwhile ` +
    `${result.queuedCpu.toFixed(1)} s.\n` +
    `Sending: first email received ${seconds(result.firstSendMs)} s after the webhooks' 200 (ALERT_GATHER_MS ` +
    `${getEnv().ALERT_GATHER_MS} ms); emails per second over each whole second: min ${sortedSeconds[0] ?? 0}, ` +
    `p10 ${percentile(sortedSeconds, 10)}, median ${percentile(sortedSeconds, 50)}, max ${sortedSeconds.at(-1) ?? 0}. ` +
    `Message states when measured: ${result.states.map(({ state, n }) => `${state} ${n}`).join(", ")}.\n` +
    `Reference: ${reference.sent} sent, ${referenceReceived} received, ${reference.seconds.toFixed(1)} s ` +
    `(${(referenceWallMs / 1000).toFixed(1)} s with its process's start); each send p50 ${reference.p50.toFixed(1)} ms, ` +
    `p99 ${reference.p99.toFixed(1)} ms, max ${reference.max.toFixed(1)} ms. Message size: app ${mean(appMessageBytes)} B, ` +
    `reference ${mean(referenceBytes)} B (means of the last 50 received).\n` +
    `CPU while sending: worker ${result.sendCpu.toFixed(1)} s, this process (stand-in and mailbox) ` +
    `${result.benchCpu.toFixed(1)} s, over ${result.sendSeconds.toFixed(1)} s; during the reference, this process ` +
    `${((referenceBenchCpu.user + referenceBenchCpu.system) / 1e6).toFixed(1)} s over ` +
    `${(referenceWallMs / 1000).toFixed(1)} s.\n` +
    `Worker RSS: ${result.startRssMb} MB when started; highest sample ${peakSample.mb} MB, ` +
    `${seconds(peakSample.at - result.answeredAt)} s after the webhooks' 200; every 10 s from the 200 (MB): ` +
    `${rssSamples
      .filter((sample, index) => {
        const previous = rssSamples[index - 1];
        const slot = (at: number) => Math.floor((at - result.answeredAt) / 10_000);
        return sample.at >= result.answeredAt && (!previous || slot(previous.at) !== slot(sample.at));
      })
      .map((sample) => sample.mb)
      .join(", ")}.\n` +
    `Pacing: ${RATE_PER_MINUTE}/minute (the maximum) sends ${customers} emails in at least ${paced.toFixed(1)} ` +
    `minutes; at the default 60/minute, ${(customers / 60 / 60).toFixed(1)} hours.\n`,
);
process.exit(0);
