/** The soak's goals and its printed report (docs/benchmarks.md). */
import { percentile } from "../lib";
import type { Goal, ProcessRss, SoakReport } from "./types";

export function mean(values: number[]) {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}

/** RSS growth in the load's second half: the mean of its last quarter against the mean of its first quarter. */
export function summariseRss(name: string, samples: Array<{ t: number; mb: number }>, duration: number): ProcessRss {
  const half = duration / 2;
  const quarter = half / 4;
  const firstQuarterMb = mean(samples.filter(({ t }) => t >= half && t < half + quarter).map(({ mb }) => mb));
  const lastQuarterMb = mean(samples.filter(({ t }) => t >= duration - quarter).map(({ mb }) => mb));
  return {
    name,
    samples,
    firstQuarterMb,
    lastQuarterMb,
    growthPercent: ((lastQuarterMb - firstQuarterMb) / firstQuarterMb) * 100,
    maxMb: Math.max(...samples.map(({ mb }) => mb)),
  };
}

export const RSS_GROWTH_GOAL_PERCENT = 10;

export function soakGoals(report: Omit<SoakReport, "options" | "goals" | "baseline">): Goal[] {
  const missing = report.receivers.reduce((sum, receiver) => sum + receiver.missing, 0);
  const badSignatures = report.receivers.reduce((sum, receiver) => sum + receiver.badSignatures, 0);
  const unexpected = report.kinds.flatMap((kind) =>
    Object.entries(kind.statuses)
      .filter(([status]) => !/^2\d\d$/.test(status))
      .map(([status, count]) => `${kind.name}: ${count} x ${status}`),
  );
  const shed = report.kinds.reduce((sum, kind) => sum + kind.shed, 0);
  const inexact = report.rateWindows.filter((window) => window.exact === false);
  const conclusive = (bucket: string) =>
    report.rateWindows.some((window) => window.bucket === bucket && window.exact === true);
  const worstRss = report.rss.reduce((worst, process) =>
    process.growthPercent > worst.growthPercent ? process : worst,
  );
  return [
    {
      name: "every event delivered to every endpoint of its shop",
      met: report.drainSeconds !== null && missing === 0 && report.events > 0,
      detail: `${report.events} events, ${missing} (event, endpoint) pairs missing, drained ${
        report.drainSeconds === null ? "not within the bound" : `in ${report.drainSeconds.toFixed(1)} s`
      }`,
    },
    {
      name: "no delivery owed once the queues are idle",
      met: report.owedWhileIdle === 0,
      detail: `at most ${report.owedWhileIdle} owed with nothing to relay and no job queued`,
    },
    { name: "every delivery signed", met: badSignatures === 0, detail: `${badSignatures} bad signatures` },
    {
      name: "rate limits exact across processes",
      met: conclusive("shop") && conclusive("shopper") && inexact.length === 0,
      detail:
        `${report.rateWindows.length} windows checked, ${inexact.length} inexact, ` +
        `${report.rateWindows.filter((window) => window.exact === null).length} inconclusive (an answer was a 5xx, or the burst outlasted 45 s)`,
    },
    {
      name: "no import left running, import counts right",
      met: report.unfinishedJobs === 0 && report.imports.every((job) => job.right),
      detail: `${report.imports.filter((job) => job.right).length}/${report.imports.length} imports right, ${report.unfinishedJobs} jobs unfinished`,
    },
    {
      name: "every answer of the mixed load 2xx, none shed",
      met: unexpected.length === 0 && shed === 0,
      detail: unexpected.length || shed ? `${[...unexpected, `${shed} shed`].join("; ")}` : "all 2xx",
    },
    {
      name: `RSS flat in the second half (growth < ${RSS_GROWTH_GOAL_PERCENT}%)`,
      met: report.rss.every((process) => process.growthPercent < RSS_GROWTH_GOAL_PERCENT),
      detail: `worst: ${worstRss.name} ${worstRss.growthPercent.toFixed(1)}%`,
    },
  ];
}

export const ms = (value: number) => (Number.isNaN(value) ? "-" : value.toFixed(1));

/** The report as markdown tables (docs/benchmarks.md keeps them). */
export function formatReport(report: SoakReport): string {
  const { options } = report;
  const lines: string[] = [];
  lines.push(
    `Soak, PostgreSQL, 2 web + 2 worker processes, ${options.durationSeconds} s of mixed load, ${options.shoppers} shoppers ` +
      `in 3 shops, Node ${process.version}. Offered: toggles ${options.toggleRate}/s, storefront reads ` +
      `${options.storefrontReadRate}/s, merchant reads ${options.merchantReadRate}/s, ${options.imports} imports of ` +
      `${options.importRows} rows.`,
    "",
    "| Kind | requests | req/s | p50 ms | p99 ms | max ms | statuses | reference p50/p99 ms | p99 ratio |",
    "|---|---|---|---|---|---|---|---|---|",
  );
  for (const kind of report.kinds) {
    // "toggle, app proxy guest" is measured against the reference's "toggle", and so on.
    const reference = report.baseline.find(
      (candidate) => kind.name === candidate.name || kind.name.startsWith(`${candidate.name},`),
    );
    const p99 = percentile(kind.latencies, 99);
    const referenceP99 = reference ? percentile(reference.latencies, 99) : Number.NaN;
    lines.push(
      `| ${kind.name} | ${kind.sent} | ${(kind.latencies.length / kind.seconds).toFixed(1)} | ` +
        `${ms(percentile(kind.latencies, 50))} | ${ms(p99)} | ${ms(kind.latencies.at(-1) ?? Number.NaN)} | ` +
        `${Object.entries(kind.statuses)
          .map(([status, count]) => `${status}: ${count}`)
          .join(", ")}${kind.shed ? `, shed: ${kind.shed}` : ""} | ` +
        `${reference ? `${ms(percentile(reference.latencies, 50))}/${ms(referenceP99)}` : "-"} | ` +
        `${reference ? `${(p99 / referenceP99).toFixed(2)}x` : "-"} |`,
    );
  }
  lines.push(
    "",
    "| Receiver | shop | behaviour | events | received | missing | attempts | failures injected | duplicates | bad signatures |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...report.receivers.map(
      (r) =>
        `| ${r.name} | ${r.shop} | ${r.behaviour} | ${r.events} | ${r.received} | ${r.missing} | ${r.attempts} | ` +
        `${r.failuresInjected} | ${r.duplicates} | ${r.badSignatures} |`,
    ),
    "",
    "| Process | RSS MB at start | max | 2nd half, first quarter mean | last quarter mean | growth |",
    "|---|---|---|---|---|---|",
    ...report.rss.map(
      (p) =>
        `| ${p.name} | ${p.samples[0]?.mb ?? "-"} | ${p.maxMb} | ${p.firstQuarterMb.toFixed(0)} | ` +
        `${p.lastQuarterMb.toFixed(0)} | ${p.growthPercent.toFixed(1)}% |`,
    ),
    "",
    `Rate-limit windows: ${report.rateWindows
      .map(
        (w) =>
          `${w.bucket} ${w.accepted}/${w.sent} accepted (limit ${w.limit}) in ${w.seconds.toFixed(1)} s${w.exact === null ? ` (inconclusive: ${w.other} answers neither 200 nor 429, or longer than 45 s)` : w.exact ? "" : " **inexact**"}`,
      )
      .join("; ")}.`,
    `Imports: ${report.imports
      .map(
        (i) =>
          `${i.shop} ${i.status} ${i.imported}/${i.rows} imported, ${i.skipped} skipped, ${i.itemsFound} items, ${i.seconds.toFixed(1)} s`,
      )
      .join("; ")}.`,
    `Drain after the load: ${report.drainSeconds === null ? "not reached" : `${report.drainSeconds.toFixed(1)} s`}.`,
    "",
    "| Goal | met | detail |",
    "|---|---|---|",
    ...report.goals.map((goal) => `| ${goal.name} | ${goal.met ? "met" : "**missed**"} | ${goal.detail} |`),
  );
  return lines.join("\n");
}
