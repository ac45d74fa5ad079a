/**
 * `npm run bench -- <name> [options]`: the benchmark scripts of the hot paths. Each measures the real
 * server next to a bare reference doing the same SQL on the same driver in the same run, and prints per
 * operation both throughputs and latency percentiles, the ratios, the web process's idle and peak RSS, and
 * whether each goal is met (docs/benchmarks.md describes the method and records the figures). Needs
 * `npm run build` first.
 */
import { existsSync } from "node:fs";
import path from "node:path";

const benchmarks: Record<string, string> = {
  admin: "./bench/admin.ts",
  alerts: "./bench/alerts.ts",
  attribution: "./bench/attribution.ts",
  theme: "./bench/theme.ts",
  api: "./bench/private-api.ts",
  fairness: "./bench/fairness.ts",
  "headless-example": "./bench/headless-example.ts",
  storefront: "./bench/storefront.ts",
  transfers: "./bench/transfers.ts",
  webhooks: "./bench/webhooks.ts",
  soak: "./bench/soak.ts",
};
const name = process.argv[2];
if (!name || !(name in benchmarks)) {
  process.stderr.write(
    `usage: npm run bench -- <${Object.keys(benchmarks).join("|")}> [--engine sqlite|postgres] [options]\n` +
      "(the options of each benchmark are in the comment at the top of its script under scripts/bench/)\n",
  );
  process.exit(2);
}
if (!existsSync(path.resolve(import.meta.dirname, "../build/server/index.js"))) {
  process.stderr.write("run `npm run build` first: the benchmarks measure the production build\n");
  process.exit(2);
}
process.argv.splice(2, 1);
await import(benchmarks[name]!);
