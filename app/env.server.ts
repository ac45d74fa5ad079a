import { realpathSync } from "node:fs";
import path from "node:path";
import ipaddr from "ipaddr.js";
import { z } from "zod";

/**
 * The process environment, parsed once at start-up by the web server, the worker and the scripts.
 * Every variable has a working local default so `npm run dev` needs no `.env`; production refuses the
 * development secrets (see `.env.example` for the full list with explanations).
 */

const DEV_API_KEY = "local-dev-api-key";
const DEV_API_SECRET = "local-dev-api-secret";
const DEV_SERVICE_SECRET = "local-dev-service-secret-change-me-0123456789";
/** The retry schedule's unit that docs/webhooks.md promises: retries 1 minute to 6 hours apart. */
const WEBHOOK_RETRY_UNIT_CONTRACT_MS = 60_000;
const DEFAULT_DATABASE_URL = "file:./.data/wishlist.db";
/** Unset, or set to the development value (however spelt): either way the published one would be used. */
const DEV_VALUE_REFUSED =
  "must be set in production (to your own value: the development one is published in this repository)";

export const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    /** Unset: 127.0.0.1 in development and tests (the dev server is for this machine), 0.0.0.0 in production. */
    HOST: z.string().min(1).optional(),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    SHOPIFY_APP_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Unset: a SQLite file under .data/ (development and tests only; production names its database). */
    DATABASE_URL: z
      .string()
      .optional()
      .refine((url) => url === undefined || /^(file:|postgres(ql)?:\/\/)/.test(url), {
        message: "must start with file: (SQLite) or postgres:// / postgresql:// (PostgreSQL)",
      })
      .transform((url) => url ?? DEFAULT_DATABASE_URL),
    /**
     * SQLite: catch a write started inside a direct-SQL transaction at once (AsyncLocalStorage). Unset: on
     * outside production, off in production, where its cost is measured (docs/decisions/016-sqlite-writers.md).
     */
    SQLITE_NESTED_WRITE_CHECK: z.stringbool().optional(),
    /** PostgreSQL connections per process, shared by Prisma and the direct-SQL hot paths. */
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
    REDIS_URL: z
      .string()
      .default("redis://127.0.0.1:6379")
      .refine((url) => /^rediss?:\/\//.test(url), { message: "must be a redis:// or rediss:// URL" }),
    REDIS_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, "letters, digits and _ . : - only (max 64)")
      .default("wishlist"),
    SHOPIFY_API_KEY: z.string().min(1).default(DEV_API_KEY),
    SHOPIFY_API_SECRET: z.string().min(1).default(DEV_API_SECRET),
    SCOPES: z
      .string()
      .min(1)
      .default("read_products,read_inventory,read_customers,write_customers,read_themes,read_orders"),
    /**
     * Where Admin API calls go. Unset: https://<shop domain>, as in production. Tests and local stand-ins
     * point it at a server speaking the platform's GraphQL protocol.
     */
    SHOPIFY_ADMIN_API_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * Where the admin pages load App Bridge from. Unset: the platform's own script (production always).
     * `npm run dev` and the browser tests point it at the local platform stand-in, whose admin page then
     * frames the app: its origin joins the pages' frame-ancestors (docs/admin.md). The platform library
     * reads the same variable for its session-token bounce page.
     */
    APP_BRIDGE_URL: z.url({ protocol: /^https?$/ }).optional(),
    SHOPIFY_ADMIN_API_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    /**
     * Which app embed in a theme is ours (GET /v1/shop/embed-status): the block type is
     * `shopify://apps/<app handle>/blocks/app-embed/<extension id>`. The handle is `handle` in
     * shopify.app.toml; the id is the theme extension's, which `shopify app deploy` writes to .env under
     * this name. Unset, any id under our handle counts.
     */
    SHOPIFY_APP_HANDLE: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "lowercase letters, digits and - (the handle in shopify.app.toml)")
      .default("wishlist-service"),
    SHOPIFY_WISHLIST_THEME_ID: z.guid().optional(),
    SERVICE_SECRET: z.string().min(32, "must be at least 32 characters").default(DEV_SERVICE_SECRET),
    /**
     * Key rotation: the secret SERVICE_SECRET replaced. Values encrypted under it (webhook signing secrets,
     * stored idempotent responses) still decrypt; new ones use SERVICE_SECRET (lib/encryption.server.ts).
     */
    SERVICE_SECRET_PREVIOUS: z.string().min(32, "must be at least 32 characters").optional(),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    /** Rate limits per minute (the OpenAPI description: rate limits); raised only by load tests, which must still pay for the limiter. */
    RATE_LIMIT_PRIVATE_PER_MINUTE: z.coerce.number().int().min(1).default(600),
    RATE_LIMIT_STOREFRONT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
    /**
     * Storefront requests a minute per client address within a shop: the bucket a client cannot rotate
     * away from (docs/decisions/008-rate-limit-keys.md).
     */
    RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).default(300),
    /**
     * How many X-Forwarded-For hops (reverse proxies, load balancers) in front of the web process to trust
     * for the client address. 0 (default): the socket's peer address is the client.
     */
    TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
    /** Items one wishlist may hold; a save beyond it is refused with 409 `list-full`. */
    MAX_ITEMS_PER_LIST: z.coerce.number().int().min(1).max(100_000).default(500),
    /** How long the worker's outbox relay pauses when the outbox is drained (webhooks, analytics). */
    OUTBOX_RELAY_INTERVAL_MS: z.coerce.number().int().min(5).max(60_000).default(25),
    /**
     * A webhook delivery the database says is owed and that is overdue by this long is queued again: its job
     * was lost by Redis (docs/decisions/025-queue-reconciliation.md). The relay looks at most twice a period.
     */
    WEBHOOK_REQUEUE_AFTER_MS: z.coerce.number().int().min(200).max(3_600_000).default(120_000),
    /**
     * Webhooks (issue 5). Endpoint URLs must be https unless WEBHOOK_ALLOW_HTTP (development); deliveries
     * connect only to public addresses unless inside WEBHOOK_ALLOWED_NETWORKS (comma-separated CIDRs).
     * WEBHOOK_RETRY_UNIT_MS is the retry schedule's unit: a minute in production, less in tests and the demo.
     */
    WEBHOOK_ALLOW_HTTP: z.stringbool().default(false),
    /**
     * Plans (docs/decisions/062-plans-and-billing.md): whether app subscriptions are requested as test charges,
     * which the platform never bills. Unset: test charges everywhere but in production (development stores and
     * the app review need it set there too).
     */
    BILLING_TEST_CHARGES: z.stringbool().optional(),
    WEBHOOK_ALLOWED_NETWORKS: z
      .string()
      .default("")
      .refine(
        (value) =>
          value
            .split(",")
            .map((entry) => entry.trim())
            .filter(Boolean)
            .every((entry) => /^[0-9a-fA-F:.]+\/\d{1,3}$/.test(entry) && ipaddr.isValidCIDR(entry)),
        { message: "must be comma-separated CIDRs, e.g. 127.0.0.0/8,::1/128" },
      ),
    WEBHOOK_RETRY_UNIT_MS: z.coerce.number().int().min(1).max(3_600_000).optional(),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(50),
    /**
     * The most attempts of one shop a worker process runs at once (docs/decisions/026-fairness-between-shops.md):
     * a shop whose endpoints answer slowly holds at most this many of the WEBHOOK_CONCURRENCY slots. At
     * most WEBHOOK_CONCURRENCY (a larger value means no limit).
     */
    WEBHOOK_SHOP_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(10),
    /**
     * The most imports and exports of one shop that are queued or running at once (a new one is refused
     * with 409 until one ends), and the most of them one shop runs at once across all worker processes.
     */
    TRANSFER_OPEN_JOBS_PER_SHOP: z.coerce.number().int().min(1).max(100).default(5),
    TRANSFER_SHOP_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
    /** How long a worker's hold on a job lasts without renewal: a killed worker's jobs run again after it. */
    WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).max(600_000).default(30_000),
    /**
     * The customer metafield sync waits this long after a change before writing, so a burst of saves by
     * one customer costs one write (docs/decisions/023-customer-metafield-sync.md).
     */
    METAFIELD_SYNC_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
    /**
     * Wishlist alerts (docs/decisions/050-wishlist-alerts.md): an email waits ALERT_GATHER_MS after its first
     * alert for others of the same moment, and a customer gets at most one per ALERT_DIGEST_MS (later alerts
     * wait and go out together, as a digest). A sender's claim on a message lasts ALERT_SEND_LEASE_MS: a
     * message claimed by a worker that died is sent after it. Alerts are kept ALERT_RETENTION_DAYS.
     */
    ALERT_GATHER_MS: z.coerce.number().int().min(0).max(3_600_000).default(20_000),
    ALERT_DIGEST_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(7 * 24 * 3_600_000)
      .default(3_600_000),
    ALERT_SEND_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(120_000),
    /** The first retry of an email the server did not take (a 4xx, down): doubling per attempt, at most 60 times it. */
    ALERT_RETRY_BASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    ALERT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(90),
    /** Relayed events, and the webhook delivery log that hangs off them, are kept this many days. */
    EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(30),
    /**
     * Import uploads, import reports and export files (issue 6): on local disk under STORAGE_DIR, served
     * through URLs this app signs, or in an S3-compatible bucket with presigned URLs (STORAGE_DRIVER=s3).
     * Without S3_ACCESS_KEY_ID the AWS SDK's default credential chain applies (instance roles, env, files).
     */
    STORAGE_DRIVER: z.enum(["local", "s3"]).default("local"),
    STORAGE_DIR: z.string().min(1).default(".data/files"),
    S3_BUCKET: z.string().min(1).optional(),
    S3_REGION: z.string().min(1).default("us-east-1"),
    S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
    S3_FORCE_PATH_STYLE: z.stringbool().default(false),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_PREFIX: z
      .string()
      .regex(/^([A-Za-z0-9_.-]+\/)*$/, "empty, or path segments each ending in /")
      .default(""),
    /**
     * Export files and import reports are deleted this many days after their job finished, import uploads
     * this many days after an import last started from them (the worker's hourly `files.purge`).
     */
    FILE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3_650).default(7),
    /** Import and export jobs run at the same time per worker process. */
    TRANSFER_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
    /**
     * Where the worker writes its heartbeat (worker/heartbeat.ts) for a container health check
     * (worker/health-check.mjs). Unset: no heartbeat.
     */
    WORKER_HEALTH_FILE: z.string().min(1).optional(),
    /** `npm run dev` only: the port of the local platform stand-in (admin page, Admin API, App Bridge). */
    PLATFORM_STAND_IN_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** `npm run dev` only: the port of the local storefront (the demo shop's online store, the app proxy). */
    PLATFORM_STOREFRONT_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** Where `npm run dev` / `npm run seed` write the demo shop's keys. */
    DEMO_SHOP_FILE: z.string().min(1).default(".data/demo-shop.json"),
  })
  .superRefine((env, ctx) => {
    if (env.STORAGE_DRIVER === "s3" && !env.S3_BUCKET) {
      ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "must be set when STORAGE_DRIVER is s3" });
    }
    if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({
        code: "custom",
        path: ["S3_SECRET_ACCESS_KEY"],
        message: "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all",
      });
    }
    if (env.NODE_ENV !== "production") return;
    // Production names every setting below itself; a development default would run with a key, secret or
    // database anyone reading this file knows.
    if (isDefaultDatabase(env.DATABASE_URL)) {
      ctx.addIssue({
        code: "custom",
        path: ["DATABASE_URL"],
        message: "must be set in production (postgresql://... or an explicit file: path on a persistent volume)",
      });
    }
    if (isDevValue(env.SHOPIFY_API_KEY, DEV_API_KEY)) {
      ctx.addIssue({ code: "custom", path: ["SHOPIFY_API_KEY"], message: DEV_VALUE_REFUSED });
    }
    if (isDevValue(env.SHOPIFY_API_SECRET, DEV_API_SECRET)) {
      ctx.addIssue({ code: "custom", path: ["SHOPIFY_API_SECRET"], message: DEV_VALUE_REFUSED });
    }
    if (isDevValue(env.SERVICE_SECRET, DEV_SERVICE_SECRET)) {
      ctx.addIssue({ code: "custom", path: ["SERVICE_SECRET"], message: DEV_VALUE_REFUSED });
    }
    if (isDevValue(env.SERVICE_SECRET_PREVIOUS, DEV_SERVICE_SECRET)) {
      ctx.addIssue({
        code: "custom",
        path: ["SERVICE_SECRET_PREVIOUS"],
        message: "is the development secret: values encrypted under it must not be trusted in production",
      });
    }
    if (!env.SHOPIFY_APP_URL) {
      ctx.addIssue({ code: "custom", path: ["SHOPIFY_APP_URL"], message: "must be set in production" });
    } else if (!env.SHOPIFY_APP_URL.startsWith("https://")) {
      ctx.addIssue({ code: "custom", path: ["SHOPIFY_APP_URL"], message: "must be an https:// URL in production" });
    } else if (isLoopbackUrl(env.SHOPIFY_APP_URL)) {
      ctx.addIssue({
        code: "custom",
        path: ["SHOPIFY_APP_URL"],
        message: "must be the app's public URL in production, not this machine's (OAuth and signed links leave it)",
      });
    }
    // Development-only settings: each one switches off a protection that production relies on.
    if (env.WEBHOOK_ALLOW_HTTP) {
      ctx.addIssue({
        code: "custom",
        path: ["WEBHOOK_ALLOW_HTTP"],
        message: "is development only (webhook endpoints must be https in production)",
      });
    }
    const nonPublic = networkList(env.WEBHOOK_ALLOWED_NETWORKS).filter(isNonPublicNetwork);
    if (nonPublic.length > 0) {
      ctx.addIssue({
        code: "custom",
        path: ["WEBHOOK_ALLOWED_NETWORKS"],
        message: `is development only: ${nonPublic.join(", ")} would let webhook deliveries reach non-public addresses`,
      });
    }
    if (env.APP_BRIDGE_URL) {
      ctx.addIssue({
        code: "custom",
        path: ["APP_BRIDGE_URL"],
        message: "is for tests and local stand-ins only (production pages load the platform's App Bridge)",
      });
    }
    if (env.SHOPIFY_ADMIN_API_ORIGIN) {
      ctx.addIssue({
        code: "custom",
        path: ["SHOPIFY_ADMIN_API_ORIGIN"],
        message: "is for tests and local stand-ins only (production calls each shop's own https origin)",
      });
    }
    if (env.WEBHOOK_RETRY_UNIT_MS !== undefined && env.WEBHOOK_RETRY_UNIT_MS !== WEBHOOK_RETRY_UNIT_CONTRACT_MS) {
      ctx.addIssue({
        code: "custom",
        path: ["WEBHOOK_RETRY_UNIT_MS"],
        message: `is for tests and the demo only (production retries on the documented schedule, unit ${WEBHOOK_RETRY_UNIT_CONTRACT_MS} ms)`,
      });
    }
    for (const name of ["PLATFORM_STAND_IN_PORT", "PLATFORM_STOREFRONT_PORT"] as const) {
      if (env[name] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: "is for `npm run dev` only (nothing listens on it in production)",
        });
      }
    }
  })
  .transform((env) => ({
    ...env,
    HOST: env.HOST ?? (env.NODE_ENV === "production" ? "0.0.0.0" : "127.0.0.1"),
    SHOPIFY_APP_URL: (env.SHOPIFY_APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ""),
    DATABASE_URL: resolveDatabaseUrl(env.DATABASE_URL),
    DATABASE_ENGINE: env.DATABASE_URL.startsWith("file:") ? ("sqlite" as const) : ("postgres" as const),
    SQLITE_NESTED_WRITE_CHECK: env.SQLITE_NESTED_WRITE_CHECK ?? env.NODE_ENV !== "production",
    WEBHOOK_RETRY_UNIT_MS: env.WEBHOOK_RETRY_UNIT_MS ?? WEBHOOK_RETRY_UNIT_CONTRACT_MS,
    PLATFORM_STAND_IN_PORT: env.PLATFORM_STAND_IN_PORT ?? 3001,
    PLATFORM_STOREFRONT_PORT: env.PLATFORM_STOREFRONT_PORT ?? 3002,
  }));

/**
 * A development value however it is spelt: padding and case do not make a known secret unknown (a
 * secret is compared byte for byte where it is used, so " local-dev-..." would still be guessable).
 */
function isDevValue(value: string | undefined, dev: string): boolean {
  return value !== undefined && value.trim().toLowerCase() === dev.toLowerCase();
}

/**
 * Whether a SQLite URL names the default file, however the path is spelt: relative or absolute, through a
 * symbolic link (a `current` release link) or /proc/self/cwd. Compared by the real path of the folder.
 */
function isDefaultDatabase(url: string): boolean {
  if (!url.startsWith("file:")) return false;
  const real = (file: string) => {
    try {
      return path.join(realpathSync.native(path.dirname(file)), path.basename(file));
    } catch {
      return file; // a folder that does not exist yet is no other folder's alias
    }
  };
  const file = sqliteFilePath(resolveDatabaseUrl(url));
  return real(file) === real(sqliteFilePath(resolveDatabaseUrl(DEFAULT_DATABASE_URL)));
}

/** localhost (and its subdomains), a loopback address, or the unspecified one. */
function isLoopbackUrl(url: string): boolean {
  // A fully qualified name may end in dots (`localhost.` is still this machine to a browser).
  const host = new URL(url).hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "")
    .toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (!ipaddr.isValid(host)) return false;
  const range = ipaddr.process(host).range();
  return range === "loopback" || range === "unspecified";
}

function networkList(value: string): string[] {
  return value
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
}

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** ipaddr.js's table of special-purpose ranges (private, loopback, link-local, ...), per address family. */
function specialRanges(address: ipaddr.IPv4 | ipaddr.IPv6): Network[] {
  const table = (address as unknown as { SpecialRanges: Record<string, Network | Network[]> }).SpecialRanges;
  return Object.values(table).flatMap((entry) => (Array.isArray(entry[0]) ? (entry as Network[]) : [entry as Network]));
}

/** Whether a CIDR reaches any address that is not public unicast (it overlaps a special-purpose range). */
function isNonPublicNetwork(cidr: string): boolean {
  let network: Network;
  try {
    network = ipaddr.parseCIDR(cidr);
  } catch {
    return false; // the format check reports it
  }
  const [address, bits] = network;
  return specialRanges(address).some(
    ([special, specialBits]) =>
      special.kind() === address.kind() && (address.match(special, specialBits) || special.match(address, bits)),
  );
}

export type Env = z.output<typeof envSchema>;

export class EnvError extends Error {
  constructor(readonly issues: string[]) {
    super(
      `Invalid environment configuration:\n${issues.map((issue) => `  - ${issue}`).join("\n")}\n` +
        "See .env.example for every variable and its default.",
    );
    this.name = "EnvError";
  }
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // Empty strings mean "unset", as in most dotenv tooling.
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    throw new EnvError(result.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`));
  }
  return result.data;
}

/**
 * SQLite paths are resolved against the project root so the Prisma CLI (which resolves relative to
 * the schema file) and the runtime adapter (relative to cwd) always open the same file.
 */
export function resolveDatabaseUrl(url: string, root = process.cwd()): string {
  if (!url.startsWith("file:")) return url;
  const [filePath = "", query] = url.slice("file:".length).split("?");
  const absolute = path.resolve(root, filePath); // absolute paths too come out normalised (no ./, no //)
  return `file:${absolute}${query ? `?${query}` : ""}`;
}

export function sqliteFilePath(url: string): string {
  return url.slice("file:".length).split("?")[0] ?? "";
}

let cached: Env | undefined;

/** The validated environment of this process; throws `EnvError` with every problem listed. */
export function getEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}

/** For tests that change process.env between cases. @internal (a test seam) */
export function resetEnvCache(): void {
  cached = undefined;
}

/** Loads `.env` from the working directory when present (Node's own parser, no dependency). */
export function loadDotEnv(file = ".env"): void {
  try {
    process.loadEnvFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/**
 * Entry points (web, worker, scripts) start with this: `.env` loaded, the environment validated, and on
 * failure every problem printed and the process ended with exit code 1, before anything else loads.
 */
export function loadEnvOrExit(): Env {
  loadDotEnv();
  try {
    return getEnv();
  } catch (error) {
    if (!(error instanceof EnvError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
