/**
 * `npm run bench -- api [--engine sqlite|postgres] [--duration 10]`
 * GET /v1/lists and GET /v1/shop through the real server (production build, private key, rate limiter
 * on, real database), next to a bare node:http server answering the same bytes, measured in the same run.
 * GET /healthz shows what the HTTP stack alone costs.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { benchDatabase, freePort, load, startAppServer, startChild, stopChild, table, type Measurement } from "./lib";

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

// A scratch database with a shop of 200 lists x 5 items.
const database = await benchDatabase(engine, "api");
const databaseUrl = database.url;
const workDir = database.workDir;
const env = {
  DATABASE_URL: databaseUrl,
  REDIS_PREFIX: `bench:${process.pid}`,
  LOG_LEVEL: "warn",
  RATE_LIMIT_PRIVATE_PER_MINUTE: "100000000",
};
Object.assign(process.env, env);
const { prisma, prepareDatabase } = await import("../../app/db.server");
const { newId } = await import("../../app/lib/ids");
const { ensureShop } = await import("../../app/services/shops/shops.server");
const { createApiKey } = await import("../../app/services/keys/keys.server");
await prepareDatabase();
const shop = await ensureShop({ domain: "bench-shop.myshopify.com" });
const { secret } = await createApiKey({ shopId: shop.id, label: "bench" });
for (let index = 0; index < 200; index++) {
  const list = await prisma.list.create({
    data: { id: newId("list"), shopId: shop.id, customerId: String(1000 + index) },
  });
  await prisma.item.createMany({
    data: Array.from({ length: 5 }, (_, item) => ({
      id: newId("item"),
      listId: list.id,
      shopId: shop.id,
      productId: String(9000 + item),
      handle: `product-${item}`,
      titleSnapshot: `Product ${item}`,
    })),
  });
}
await prisma.$disconnect();

const app = await startAppServer(env);
const server = app.child;
const base = app.base;
const headers = { Authorization: `Bearer ${secret}` };

// The baseline answers with exactly the bytes our server gives.
const paths = ["/v1/lists", "/v1/shop", "/healthz"];
const bodies: Record<string, string> = {};
for (const route of paths) bodies[route] = await (await fetch(`${base}${route}`, { headers })).text();
const responsesFile = path.join(workDir, "reference-responses.json");
writeFileSync(responsesFile, JSON.stringify(bodies));
const referencePort = await freePort();
const reference = await startChild(
  "scripts/bench/reference-server.ts",
  [responsesFile, String(referencePort)],
  {},
  `http://127.0.0.1:${referencePort}/healthz`,
);

const rows: Array<{ subject: Measurement; baseline: Measurement }> = [];
try {
  for (const route of paths) {
    const subject = await load(`GET ${route}`, `${base}${route}`, { headers, duration, connections, pid: server.pid! });
    const baseline = await load(`GET ${route}`, `http://127.0.0.1:${referencePort}${route}`, {
      duration,
      connections,
      pid: reference.pid!,
    });
    rows.push({ subject, baseline });
  }
} finally {
  await stopChild(server);
  await stopChild(reference);
  await database.drop();
}

const failures = rows.filter((row) => row.subject.non2xx > 0);
process.stdout.write(
  `\nAPI benchmark, ${engine}, autocannon -c ${connections} -d ${duration}s, Node ${process.version}, ` +
    `${(await import("node:os")).cpus().length} cores. Baseline: bare node:http answering the same bytes.\n` +
    `GET /v1/lists returns 50 list summaries (of 200) with item counts.\n\n${table(rows)}\n`,
);
if (failures.length) {
  process.stderr.write(
    `non-2xx answers: ${failures.map((row) => `${row.subject.name}: ${row.subject.non2xx}`).join(", ")}\n`,
  );
  process.exit(1);
}
process.exit(0);
