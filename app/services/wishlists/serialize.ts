import type { Item } from "~/generated/prisma-sqlite/client";
import { toTimestamp } from "~/lib/time";

/** An item as the API and the events show it (spec 2 Item). */
export function serializeItem(item: Item) {
  return {
    id: item.id,
    productId: item.productId,
    variantId: item.variantId === "" ? null : item.variantId,
    handle: item.handle,
    titleSnapshot: item.titleSnapshot,
    addedAt: toTimestamp(item.addedAt),
  };
}
