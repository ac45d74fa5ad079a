/**
 * `npm run bench -- soak [--duration 300] [--shoppers 1000] [--toggles 20] [--reads 10] [--merchant 5]
 * [--imports 5] [--import-rows 2000] [--baseline 30]` (issue 16, item 3)
 *
 * Two web processes and two workers, started with the commands production runs (the compiled
 * build/processes/server/index.js and worker/index.js, decision 043), on a fresh PostgreSQL database (created and
 * dropped here) and a Redis key prefix of their own, under mixed load for `--duration` seconds; then
 * drained and checked (scripts/bench/soak/run.ts says what and how). Afterwards the bare references of the
 * storefront and API benchmarks are driven at the same rates for `--baseline` seconds, for the ratios.
 * Prints the tables of docs/benchmarks.md; exits 1 when a goal is missed.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { Redis } from "ioredis";
import { benchDatabase, ROOT } from "./lib";
import { runSoak } from "./soak/run";
import { formatReport } from "./soak/report";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    duration: { type: "string", default: "300" },
    shoppers: { type: "string", default: "1000" },
    toggles: { type: "string", default: "20" },
    reads: { type: "string", default: "10" },
    merchant: { type: "string", default: "5" },
    imports: { type: "string", default: "5" },
    "import-rows": { type: "string", default: "2000" },
    baseline: { type: "string", default: "30" },
  },
  allowPositionals: true,
});

const database = await benchDatabase("postgres", "soak");
const redisPrefix = `bench:soak:${process.pid}`;
let exitCode = 1;
try {
  const report = await runSoak({
    databaseUrl: database.url,
    redisPrefix,
    storageDir: path.join(ROOT, `.data/bench/soak-files-${process.pid}`),
    durationSeconds: Number(values.duration),
    shoppers: Number(values.shoppers),
    toggleRate: Number(values.toggles),
    storefrontReadRate: Number(values.reads),
    merchantReadRate: Number(values.merchant),
    imports: Number(values.imports),
    importRows: Number(values["import-rows"]),
    drainTimeoutSeconds: 300,
    baselineSeconds: Number(values.baseline),
    progress: (line) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
  });
  const [load1, load5] = (await import("node:os")).loadavg();
  process.stdout.write(
    `\n${formatReport(report)}\n\nMachine: ${(await import("node:os")).cpus().length} cores, load average at the end ` +
      `${load1!.toFixed(2)} (1 min), ${load5!.toFixed(2)} (5 min).\n`,
  );
  exitCode = report.goals.every((goal) => goal.met) ? 0 : 1;
} finally {
  await database.drop();
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
  const stream = redis.scanStream({ match: `${redisPrefix}:*`, count: 500 });
  for await (const keys of stream as AsyncIterable<string[]>) if (keys.length) await redis.unlink(...keys);
  redis.disconnect();
}
process.exit(exitCode);
