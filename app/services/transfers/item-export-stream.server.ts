/**
 * The exports' common loop (the generic export and the marketing export): the shop's items read in keyset
 * batches and streamed into storage as CSV, so memory stays flat whatever the shop's size. Each export says
 * only how a batch of live items becomes lines.
 */
import { Readable } from "node:stream";
import { database } from "~/data/database.server";
import { exportItemsPage } from "~/data/item-rows.server";
import { csvLines } from "~/lib/csv";
import { publishBatchTiming } from "./timings";

const BATCH = 2_000;

export type ExportedItemRow = Awaited<ReturnType<typeof exportItemsPage>>[number];

/**
 * The CSV file as a stream of text chunks: the header, then one chunk per batch that yields lines;
 * `onRows` hears the running total of lines.
 */
export function itemExportStream(
  shopId: string,
  columns: readonly string[],
  linesOf: (live: ExportedItemRow[]) => Promise<unknown[][]> | unknown[][],
  onRows?: (rows: number) => void,
): Readable {
  let after = "";
  let total = 0;
  let started = false;
  return new Readable({
    async read() {
      try {
        if (!started) {
          started = true;
          this.push(`${columns.join(",")}\r\n`);
          return;
        }
        // The batch is chosen on Item alone (its (shopId, id) index, in order), then joined: items of retired
        // lists are dropped after the cursor has passed them, so they can never end the export early.
        for (;;) {
          const began = performance.now();
          const rows = await exportItemsPage(database(), shopId, { after, limit: BATCH });
          if (rows.length === 0) {
            this.push(null);
            return;
          }
          after = rows.at(-1)!.id;
          const live = rows.filter((row) => row.retiredAt === null);
          const lines = live.length === 0 ? [] : await linesOf(live);
          if (lines.length === 0) continue;
          total += lines.length;
          onRows?.(total);
          publishBatchTiming("export", lines.length, began);
          this.push(`${csvLines(lines)}\r\n`);
          return;
        }
      } catch (error) {
        this.destroy(error as Error);
      }
    },
  });
}
