/**
 * `npm run dev`: the whole app on the embedded defaults in one command.
 *  1. validates the environment;
 *  2. makes sure Redis answers (starts a local `redis-server` child when none does and the binary exists);
 *  3. applies the migrations of the selected engine and seeds the demo shop;
 *  4. starts the local platform stand-in (the shop admin that frames the app, its Admin API and App
 *     Bridge; stand-in/platform.ts), so the embedded admin opens in a plain browser, with its local
 *     mailbox: an SMTP server on port 1025 (DEV_SMTP_PORT) keeping what the app sends, read at /mailbox;
 *  5. runs the web server (Vite dev middleware, HMR) and the worker until Ctrl-C, and prints where the app
 *     and its admin are once the web server answers.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { Redis } from "ioredis";
import { z } from "zod";
import { loadDotEnv, loadEnvOrExit, resetEnvCache } from "~/env.server";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";
import { demoShopData } from "../stand-in/demo-data";
import { startPlatformStandIn } from "../stand-in/platform";
import { storefrontAccessTokenOf } from "../stand-in/storefront-api";

const root = path.resolve(import.meta.dirname, "..");
const children: ChildProcess[] = [];
let shuttingDown = false;

function say(message: string) {
  process.stdout.write(`[dev] ${message}\n`);
}

function fail(message: string): never {
  process.stderr.write(`[dev] ${message}\n`);
  stopAll(1);
  process.exit(1);
}

function stopAll(code: number) {
  if (shuttingDown) return;
  shuttingDown = true;
  const running = children.filter((child) => child.exitCode === null && child.signalCode === null);
  if (running.length === 0) process.exit(code);
  let left = running.length;
  for (const child of running) {
    child.once("exit", () => {
      if (--left === 0) process.exit(code);
    });
    child.kill("SIGTERM");
  }
  // A child that ignores SIGTERM must not keep the terminal hostage.
  setTimeout(() => process.exit(code), 10_000).unref();
}

async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function ensureRedis(url: string) {
  if (await redisAnswers(url)) return say(`Redis answers at ${url}`);
  const { hostname, port } = new URL(url);
  const local = ["127.0.0.1", "localhost", "::1", "[::1]"].includes(hostname);
  const hasBinary = !spawnSync("redis-server", ["--version"]).error;
  if (!local || !hasBinary) {
    fail(
      `Redis is not reachable at ${url}.\n` +
        (local
          ? "Install Redis so this command can start it (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or start one yourself.\n"
          : "Start that Redis server, or unset REDIS_URL to use a local one.\n") +
        "Then run `npm run dev` again.",
    );
  }
  say(`no Redis at ${url}: starting a local redis-server child on port ${port || 6379}`);
  const redis = spawn(
    "redis-server",
    ["--port", port || "6379", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  children.push(redis);
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await redisAnswers(url)) return say("local redis-server is up");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  fail("the local redis-server did not come up within 5 s");
}

function runStep(label: string, script: string, args: string[] = []) {
  say(label);
  const result = spawnSync(process.execPath, ["--import", "tsx", path.join(root, script), ...args], {
    stdio: "inherit",
    cwd: root,
  });
  if (result.status !== 0) fail(`${label} failed (exit ${result.status})`);
}

/**
 * Resolves once the web server answers GET /healthz on `host`:`port` (a wildcard address is asked on
 * loopback). Until then it keeps asking; if the web process exits first, `startChild` stops everything.
 */
async function webAnswers(host: string, port: number) {
  const target = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host;
  const url = `http://${target.includes(":") ? `[${target}]` : target}:${port}/healthz`;
  const started = Date.now();
  let warned = false;
  for (;;) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok || shuttingDown) return;
    if (!warned && Date.now() - started > 60_000) {
      warned = true;
      say(`the web server does not answer ${url} yet; still waiting`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Whether nothing listens on `host`:`port` yet: another process there would answer webAnswers' health check
 * in our web server's place (and ours would exit with EADDRINUSE), so the URLs would be announced for it.
 */
function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

function startChild(name: string, script: string) {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, script)], { stdio: "inherit", cwd: root });
  children.push(child);
  child.on("exit", (code, signal) => {
    if (shuttingDown) return;
    say(`${name} exited (${signal ?? code}); stopping`);
    stopAll(code ?? 1);
  });
}

// The local demo may deliver webhooks to a receiver on this machine over plain http, and retries in
// seconds rather than minutes; a value set in the environment or .env still wins.
loadDotEnv();
process.env.WEBHOOK_ALLOW_HTTP ||= "true";
process.env.WEBHOOK_ALLOWED_NETWORKS ||= "127.0.0.0/8,::1/128";
// A customer's next alert email waits a minute after the last, not an hour, so a second change in the local
// demo is seen at once (docs/decisions/050-wishlist-alerts.md, digests).
process.env.ALERT_DIGEST_MS ||= "60000";
process.env.WEBHOOK_RETRY_UNIT_MS ||= "1000";
const env = loadEnvOrExit();
// The local mailbox's port: a development-only setting of this script, not of the app.
const smtpPort = z.coerce
  .number()
  .int()
  .min(0)
  .max(65535)
  .safeParse(process.env.DEV_SMTP_PORT || "1025");
if (!smtpPort.success) fail(`DEV_SMTP_PORT must be a port number (0-65535), not ${process.env.DEV_SMTP_PORT}`);

process.on("SIGINT", () => stopAll(0));
process.on("SIGTERM", () => stopAll(0));

await ensureRedis(env.REDIS_URL);
runStep(`applying ${env.DATABASE_ENGINE} migrations`, "scripts/prisma.ts", ["migrate", "deploy"]);
runStep("seeding the demo shop", "scripts/seed-demo.ts");

// The platform stand-in answers for the demo shop with the token the seed stored as its session.
const { DEMO_SHOP_DOMAIN, demoAccessToken, recordDemoStorefront } = await import("./lib/demo-shop");
let platform;
try {
  platform = await startPlatformStandIn({
    appUrl: env.SHOPIFY_APP_URL,
    apiKey: env.SHOPIFY_API_KEY,
    apiSecret: env.SHOPIFY_API_SECRET,
    appHandle: env.SHOPIFY_APP_HANDLE,
    scopes: env.SCOPES,
    shops: [demoShopData({ domain: DEMO_SHOP_DOMAIN, accessToken: demoAccessToken() })],
    port: env.PLATFORM_STAND_IN_PORT,
    storefrontPort: env.PLATFORM_STOREFRONT_PORT,
    apiVersion: SHOPIFY_API_VERSION,
    // The theme's app embed, switched on once, stays on across restarts, as on the platform, and so do the
    // orders placed with the storefront's checkout.
    stateFile: path.join(root, ".data", "stand-in-theme.json"),
    mailbox: { port: smtpPort.data },
  });
} catch (error) {
  const { code, port } = error as NodeJS.ErrnoException & { port?: number };
  const [what, variable] =
    port === env.PLATFORM_STOREFRONT_PORT
      ? ["the local storefront", "PLATFORM_STOREFRONT_PORT"]
      : port === smtpPort.data
        ? ["the local mailbox", "DEV_SMTP_PORT"]
        : ["the local admin", "PLATFORM_STAND_IN_PORT"];
  fail(
    code === "EADDRINUSE"
      ? `port ${port} (${what}) is in use: stop the other process or set ${variable}`
      : `the platform stand-in did not start: ${String(error)}`,
  );
}
// A headless storefront (examples/headless-storefront) reads the demo shop's Storefront API from the demo file.
recordDemoStorefront(path.resolve(root, env.DEMO_SHOP_FILE), {
  storefrontOrigin: platform.storefrontOrigin,
  storefrontAccessToken: storefrontAccessTokenOf(platform.shops[0]!),
});
// The web server and the worker call the stand-in's Admin API and load its App Bridge (a value set in the
// environment or .env still wins).
process.env.SHOPIFY_ADMIN_API_ORIGIN ||= platform.origin;
process.env.APP_BRIDGE_URL ||= `${platform.origin}/app-bridge.js`;
// The port the mailbox took (DEV_SMTP_PORT=0 picks a free one), for the web server and the worker.
process.env.DEV_SMTP_PORT = String(platform.mailbox!.port);
resetEnvCache();
loadEnvOrExit();

if (!(await portFree(env.HOST, env.PORT)))
  fail(`port ${env.PORT} is already in use: stop the other process or set PORT`);
startChild("web", "server/index.ts");
startChild("worker", "worker/index.ts");
// The URLs are worth printing only once they answer: the web server takes some seconds to start.
await webAnswers(env.HOST, env.PORT);
say(`web on ${env.SHOPIFY_APP_URL} (port ${env.PORT}); worker consuming from ${env.REDIS_URL}. Ctrl-C stops both.`);
say(`Admin URL    ${platform.adminUrl(DEMO_SHOP_DOMAIN)}   (the embedded admin of the demo shop, no account needed)`);
say(`Storefront   ${platform.storefrontOrigin}/   (the demo shop's online store with the theme extension)`);
say(
  `Orders       ${platform.origin}/store/${DEMO_SHOP_DOMAIN.replace(/\.myshopify\.com$/, "")}/orders   (the storefront's checkout places them; cancel or refund here)`,
);
say(
  `Mailbox      ${platform.origin}/mailbox   (what the app emails; SMTP on ${platform.mailbox!.host}:${platform.mailbox!.port}, nothing leaves this machine)`,
);
