// A stand-in for a CRM: customers' wishlists in a JSON file, one record per list, keyed by the list's id.
// Swap these functions for your CRM's API calls; most CRMs have an upsert by an external id.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";

export interface CrmList {
  listId: string;
  customerId: string;
  name: string;
  /** The list's updatedAt in the service: a later state of the list never loses to an earlier one. */
  updatedAt: string;
  items: Array<{
    itemId: string;
    productId: string;
    variantId: string | null;
    addedAt: string;
    note: string | null;
    quantity: number;
  }>;
}

export type Outcome = "created" | "updated" | "unchanged" | "stale" | "deleted";

export function openCrm(file: string) {
  const read = (): Record<string, CrmList> => (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {});
  const write = (lists: Record<string, CrmList>) => {
    // Written whole to a new file, then renamed over the old one: a crash never leaves half a file.
    writeFileSync(`${file}.tmp`, `${JSON.stringify(lists, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
  };

  return {
    lists: read,

    /** Idempotent: the same list twice changes nothing; a state older than the one held is ignored. */
    upsert(list: CrmList): Outcome {
      const lists = read();
      const held = lists[list.listId];
      if (held && held.updatedAt > list.updatedAt) return "stale";
      if (held && JSON.stringify(held) === JSON.stringify(list)) return "unchanged";
      lists[list.listId] = list;
      write(lists);
      return held ? "updated" : "created";
    },

    remove(listId: string): Outcome {
      const lists = read();
      if (!lists[listId]) return "unchanged";
      delete lists[listId];
      write(lists);
      return "deleted";
    },
  };
}
