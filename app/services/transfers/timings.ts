/**
 * How long each batch of an import or export job took (a batch of an import: resolve, insert, commit; of
 * an export: select one page and turn it into CSV). Published on a diagnostics channel, which costs
 * nothing while nobody subscribes: the transfers benchmark subscribes to report batch latency
 * percentiles, and a metrics exporter could.
 */
import { channel } from "node:diagnostics_channel";

export interface BatchTiming {
  kind: "import" | "export";
  rows: number;
  ms: number;
}

export const batchTimings = channel("wishlist:transfers:batch");

export function publishBatchTiming(kind: BatchTiming["kind"], rows: number, startedAt: number) {
  if (batchTimings.hasSubscribers) {
    batchTimings.publish({ kind, rows, ms: performance.now() - startedAt } satisfies BatchTiming);
  }
}
