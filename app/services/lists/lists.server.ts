import { prisma } from "~/db.server";
import { AppError } from "~/lib/problems";

/**
 * Merchant-side list browsing. Retired lists (guest lists merged into a customer's) are not shown.
 * Keyset pagination on the time-ordered id gives a stable order.
 */
export async function browseLists({
  shopId,
  customerId,
  after,
  limit,
}: {
  shopId: string;
  customerId?: string;
  after?: string;
  limit: number;
}) {
  const lists = await prisma.list.findMany({
    where: { shopId, retiredAt: null, ...(customerId ? { customerId } : {}), ...(after ? { id: { gt: after } } : {}) },
    orderBy: { id: "asc" },
    take: limit + 1,
  });
  const counts = await countItems(lists.map((list) => list.id));
  return lists.map((list) => ({ ...list, count: counts.get(list.id) ?? 0 }));
}

async function countItems(listIds: string[]) {
  if (listIds.length === 0) return new Map<string, number>();
  const groups = await prisma.item.groupBy({
    by: ["listId"],
    where: { listId: { in: listIds } },
    _count: { _all: true },
  });
  return new Map(groups.map((group) => [group.listId, group._count._all]));
}

/** One list of this shop with its items (newest first). */
export async function getListWithItems({ shopId, listId }: { shopId: string; listId: string }) {
  const list = await prisma.list.findFirst({
    where: { id: listId, shopId, retiredAt: null },
    include: { items: { orderBy: [{ addedAt: "desc" }, { id: "desc" }] } },
  });
  if (!list) throw new AppError("not-found", { detail: `No list ${listId} in this shop.` });
  return { ...list, count: list.items.length };
}
