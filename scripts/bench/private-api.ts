/**
 * `npm run bench -- api [--engine sqlite|postgres] [--duration 10]`
 * `GET /v1/shop`, `GET /v1/lists` and `GET /v1/lists/{id}` through the real web server (production build,
 * private key, rate limiter on with its limit raised, real database), each next to its bare reference
 * measured in the same run on the same database: node:http plus the driver doing the same SQL per request
 * (key lookup, then the overview counts / a page of lists with their item counts / one list with its items)
 * and the same JSON (scripts/bench/api-reference.ts). `GET /healthz` shows what the HTTP stack alone costs
 * (its reference answers the same bytes with no database). Goal (issue 12): >= 0.5x the reference's
 * throughput, p99 <= 2x; web process RSS <= 150 MB idle.
 */
import { isDeepStrictEqual } from "node:util";
import { parseArgs } from "node:util";
import {
  benchDatabase,
  benchSql,
  freePort,
  idleRssAfterWarmUp,
  load,
  memoryLine,
  seedLists,
  startAppServer,
  startChild,
  stopChild,
  table,
  type Measurement,
} from "./lib";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    engine: { type: "string", default: "sqlite" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
  },
  allowPositionals: true,
});
const engine = values.engine === "postgres" ? "postgres" : "sqlite";
const duration = Number(values.duration);
const connections = Number(values.connections);

// A scratch database with a shop of 200 lists x 5 items, read by both servers (nothing here writes).
const database = await benchDatabase(engine, "api");
const env = {
  DATABASE_URL: database.url,
  REDIS_PREFIX: `bench:${process.pid}`,
  LOG_LEVEL: "warn",
  RATE_LIMIT_PRIVATE_PER_MINUTE: "100000000",
};
Object.assign(process.env, env);
// The shop and its key through the app's services; the lists in bulk with plain SQL on the driver.
const { ensureShop } = await import("~/services/shops/shops.server");
const { createApiKey } = await import("~/services/keys/api-keys.server");
const { closeDatabase } = await import("~/data/database.server");
const shop = await ensureShop({ domain: "bench-shop.myshopify.com" });
const { secret } = await createApiKey({ shopId: shop.id, label: "bench" });
await closeDatabase();
const seeding = await benchSql(database.url);
const listIds = await seedLists(seeding, shop.id, 200, 5);
await seeding.close();

const headers = { Authorization: `Bearer ${secret}` };
const pick = () => listIds[Math.floor(Math.random() * listIds.length)]!;
const operations: Array<{ name: string; path: string; requests?: unknown[] }> = [
  { name: "GET /v1/shop", path: "/v1/shop" },
  { name: "GET /v1/lists", path: "/v1/lists" },
  {
    name: "GET /v1/lists/{id}",
    path: `/v1/lists/${listIds[0]}`,
    // A random list of the 200 per request.
    requests: [
      {
        method: "GET",
        setupRequest: (request: Record<string, unknown>) => ({ ...request, path: `/v1/lists/${pick()}` }),
      },
    ],
  },
  { name: "GET /healthz", path: "/healthz" },
];

const dropOnFailure = async (error: unknown): Promise<never> => {
  await database.drop();
  throw error;
};
const app = await startAppServer(env).catch(dropOnFailure);
const referencePort = await freePort();
const referenceBase = `http://127.0.0.1:${referencePort}`;
const reference = await startChild(
  "scripts/bench/api-reference.ts",
  [database.url, String(referencePort)],
  {},
  `${referenceBase}/healthz`,
).catch(async (error: unknown) => {
  await stopChild(app.child);
  return dropOnFailure(error);
});

const rows: Array<{ subject: Measurement; baseline: Measurement; informative?: boolean }> = [];
let idleRss = 0;
const mismatches: string[] = [];
try {
  idleRss = await idleRssAfterWarmUp(
    app.child.pid!,
    operations.map(({ path }) => ({ url: `${app.base}${path}`, init: { headers } })),
  );
  // The reference must answer what the app answers (the cursor's signature key aside).
  for (const { name, path } of operations.slice(1, 3)) {
    const [ours, theirs] = await Promise.all(
      [app.base, referenceBase].map(
        async (base) => (await (await fetch(`${base}${path}`, { headers })).json()) as { data?: unknown },
      ),
    );
    if (!isDeepStrictEqual(ours!.data ?? ours, theirs!.data ?? theirs)) mismatches.push(name);
  }
  // One server under load at a time: they share the machine's cores.
  for (const { name, path, requests } of operations) {
    const options = { headers, duration, connections, requests: requests as never };
    const subject = await load(name, `${app.base}${path}`, { ...options, pid: app.child.pid! });
    const baseline = await load(name, `${referenceBase}${path}`, { ...options, pid: reference.pid! });
    rows.push({ subject, baseline, informative: path === "/healthz" });
  }
} finally {
  await stopChild(app.child);
  await stopChild(reference);
  await database.drop();
}

process.stdout.write(
  `\nAPI benchmark, ${engine}, autocannon -c ${connections} -d ${duration}s after a 2 s warm-up, Node ${process.version}, ` +
    `${(await import("node:os")).cpus().length} cores. Reference: bare node:http + ` +
    `${engine === "sqlite" ? "better-sqlite3" : "pg"} doing the same SQL and JSON per request, same database.\n` +
    `200 lists x 5 items; GET /v1/lists returns 50 list summaries with item counts; GET /v1/lists/{id} a random ` +
    `list with its 5 items.\n\n${table(rows)}\n\n` +
    `${memoryLine(idleRss, Math.max(...rows.map((row) => row.subject.peakRssMb)))}\n`,
);
const failures = rows.filter((row) => row.subject.non2xx > 0 || row.baseline.non2xx > 0);
if (mismatches.length)
  process.stderr.write(`the reference answered differently from the app: ${mismatches.join(", ")}\n`);
if (failures.length) {
  process.stderr.write(
    `non-2xx answers or errors: ${failures.map((row) => `${row.subject.name}: ${row.subject.non2xx}/${row.baseline.non2xx}`).join(", ")}\n`,
  );
}
process.exit(failures.length || mismatches.length ? 1 : 0);
