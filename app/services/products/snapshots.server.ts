/**
 * Product snapshots (docs/decisions/022-product-snapshots.md, 029-catalogue-titles.md). Every save, with a
 * title or without (a title is the shopper's word, or an import file's), stores the item with
 * `productLookupAt` set: the worker is to ask the platform for the product's title and handle. One job per
 * shop does it in batches of the platform's `nodes(ids:)` limit, paced by its cost-based rate limit; the
 * database says what is due, so the sweep queues any shop whose job Redis lost.
 *  - Found: `titleSnapshot` and `handle` take the platform's values, replacing what the save carried, and
 *    are marked the catalogue's (`catalogueTitleAt`); the item is done. Later saves of the product take them.
 *  - Unknown to the platform (a null node): the product is gone from the shop (ids are never reused), so
 *    the shop's items of it are marked unavailable, stay untitled, and are never asked about again.
 *  - The shop cannot be asked (no token, token refused, a query the platform refuses, or the platform down
 *    through the last retry): its due lookups are put off an hour, so neither the sweep nor the retries
 *    spin on it; saves made meanwhile are asked for as usual.
 */
import type { Redis } from "ioredis";
import { database, transaction } from "~/data/database.server";
import {
  fillProductSnapshot,
  findDueProductIds,
  findShopsWithDueLookups,
  markProductsGone,
  postponeDueLookups,
} from "~/data/item-rows.server";
import { requestProductRefresh } from "~/data/catalogue-rows.server";
import { findShopById } from "~/data/shop-rows.server";
import { enqueueProductSnapshots } from "~/jobs/queues.server";
import { isDomainError } from "~/lib/domain-error";
import { logger } from "~/logger.server";
import { queueAlertRefresh } from "~/services/alerts/refresh.server";
import {
  createAdminCaller,
  NODES_PER_QUERY,
  PlatformUnavailable,
  POSTPONE_MS,
} from "~/services/platform/admin-api.server";
import type { AdminData } from "~/services/platform/admin-operations";

const PRODUCTS_BY_ID = `#graphql
  query WishlistProductSnapshots($ids: [ID!]!) {
    nodes(ids: $ids) { ... on Product { id title handle } }
  }`;

/** The longest throttle wait slept within a run; a longer one ends it, and BullMQ runs it again after. */
const MAX_WAIT_MS = 30_000;
/** Batches per run: a shop with more due products queues its next run and hands the worker back. */
const BATCHES_PER_RUN = 20;
/** Shops queued per sweep at most (the rest on the next sweep). */
const SWEEP_LIMIT = 1_000;

const productGid = (productId: string) => `gid://shopify/Product/${productId}`;
const productIdOf = (gid: string | undefined) => /^gid:\/\/shopify\/Product\/(\d+)$/.exec(gid ?? "")?.[1];

let lastQueueWarningAt = 0;

/**
 * Queues the shop's snapshot run after a save committed. Best effort and never thrown:
 * the save is done, and the sweep queues the run if Redis did not take it (warned once a minute at most,
 * so an outage does not log every save).
 */
export async function requestProductSnapshots(shopId: string, connection?: Redis): Promise<void> {
  try {
    await enqueueProductSnapshots(shopId, connection);
  } catch (error) {
    if (Date.now() - lastQueueWarningAt < 60_000) return;
    lastQueueWarningAt = Date.now();
    logger.warn({ err: error, shopId }, "product snapshot run not queued; the worker's sweep will queue it");
  }
}

/** Queues the runs of shops with lookups due since `dueBefore` (the maintenance sweep). Returns the shop ids. */
export async function queueDueProductSnapshots({
  dueBefore,
  connection,
}: {
  dueBefore: Date;
  connection?: Redis;
}): Promise<string[]> {
  const shopIds = await findShopsWithDueLookups(database(), { before: dueBefore, limit: SWEEP_LIMIT });
  for (const shopId of shopIds) await enqueueProductSnapshots(shopId, connection);
  return shopIds;
}

export interface SnapshotRun {
  /** Distinct products asked about. */
  asked: number;
  /** Items given their title and handle. */
  filled: number;
  /** Items marked unavailable (the platform knows no such product). */
  gone: number;
  /** Admin API calls, retries included. */
  calls: number;
  /** Items put off (the platform could not be asked for the shop), and why. */
  postponed?: { items: number; reason: string };
  /** More were due than one run takes: the next run is queued. */
  more?: boolean;
  /** The shop is gone or uninstalled: nothing was asked. */
  skipped?: string;
}

/**
 * Fills the shop's due snapshots, one `nodes(ids:)` query per batch of up to 250 products. A transient
 * failure (the platform unreachable, a 5xx, throttled for longer than a run waits) is thrown for BullMQ to
 * retry, unless this is the job's `finalAttempt`: then, as for the failures retrying cannot mend, the
 * shop's due lookups are put off POSTPONE_MS and the run ends.
 */
export async function runProductSnapshots({
  shopId,
  finalAttempt = true,
  connection,
  sleep,
}: {
  shopId: string;
  finalAttempt?: boolean;
  connection?: Redis;
  sleep?: (ms: number) => Promise<void>;
}): Promise<SnapshotRun> {
  const run: SnapshotRun = { asked: 0, filled: 0, gone: 0, calls: 0 };
  const shop = await findShopById(database(), shopId);
  if (!shop || shop.uninstalledAt) return { ...run, skipped: shop ? "uninstalled" : "no such shop" };
  const caller = createAdminCaller({ shopDomain: shop.domain, maxWaitMs: MAX_WAIT_MS, sleep });
  try {
    for (let batch = 0; batch < BATCHES_PER_RUN; batch += 1) {
      const now = new Date();
      const productIds = await findDueProductIds(database(), shopId, { now, limit: NODES_PER_QUERY });
      if (productIds.length === 0) return run;
      let nodes: AdminData<typeof PRODUCTS_BY_ID>["nodes"];
      try {
        ({ nodes = [] } = await caller.ask("product lookup", PRODUCTS_BY_ID, {
          ids: productIds.map(productGid),
        }));
        if (nodes.length !== productIds.length) {
          throw new PlatformUnavailable(
            `The platform answered ${nodes.length} nodes for ${productIds.length} product ids.`,
            "answered the wrong number of nodes",
            { transient: false },
          );
        }
      } catch (error) {
        const reason = whyNotNow(error, finalAttempt);
        if (!reason) throw error;
        const until = new Date(now.getTime() + POSTPONE_MS);
        const items = await postponeDueLookups(database(), shopId, { now, until });
        run.postponed = { items, reason };
        logger.warn(
          { shopId, items, until, reason, err: error },
          "product snapshots put off: the platform cannot be asked for this shop now",
        );
        return run;
      }
      const found = new Map<string, { title: string; handle: string }>();
      for (const node of nodes) {
        const id = productIdOf(node?.id);
        if (id && node?.title && node.handle) found.set(id, { title: node.title, handle: node.handle });
      }
      const gone = productIds.filter((id) => !found.has(id));
      await transaction(async (tx) => {
        for (const [productId, product] of found) {
          run.filled += await fillProductSnapshot(tx, shopId, { productId, ...product }, now);
        }
        run.gone += await markProductsGone(tx, shopId, gone, now);
        // The alerts read the saved products' prices and stock: the price a shopper saw is the one a price
        // drop is measured from (docs/decisions/050-wishlist-alerts.md).
        await requestProductRefresh(tx, shopId, [...found.keys()], now);
      });
      if (found.size > 0) await queueAlertRefresh(shopId, connection);
      run.asked += productIds.length;
    }
    // More were due than one run takes: the next run is queued (it starts after this one ends).
    await requestProductSnapshots(shopId, connection);
    run.more = true;
    return run;
  } finally {
    run.calls = caller.calls;
  }
}

/**
 * Why the platform cannot be asked for the shop until later (the lookups are then put off), or null when
 * the failure is worth a retry by BullMQ.
 */
function whyNotNow(error: unknown, finalAttempt: boolean): string | null {
  if (isDomainError(error, "platform_not_connected")) return "not connected";
  if (error instanceof PlatformUnavailable && (!error.transient || finalAttempt)) return error.reason;
  return null;
}
