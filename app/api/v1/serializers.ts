import type { ApiKey, Item, List } from "~/generated/prisma-sqlite/client";
import { toTimestamp } from "~/lib/time";

import { serializeItem } from "~/services/wishlists/serialize";

export { serializeItem };

/** Database rows to the API shapes of spec 2. */
export function serializeListSummary(list: List & { count: number }) {
  return {
    id: list.id,
    owner: list.customerId
      ? { type: "customer" as const, customerId: list.customerId }
      : { type: "anonymous" as const, customerId: null },
    name: list.name,
    default: list.isDefault === true,
    count: list.count,
    share: { enabled: list.shareEnabled, token: list.shareToken },
    updatedAt: toTimestamp(list.updatedAt),
  };
}

export function serializeList(list: List & { count: number; items: Item[] }) {
  return { ...serializeListSummary(list), items: list.items.map(serializeItem) };
}

export function serializeApiKey(key: ApiKey) {
  return {
    id: key.id,
    label: key.label,
    kind: key.kind,
    hint: key.hint,
    lastUsedAt: toTimestamp(key.lastUsedAt),
    revokedAt: toTimestamp(key.revokedAt),
    createdAt: toTimestamp(key.createdAt),
  };
}
