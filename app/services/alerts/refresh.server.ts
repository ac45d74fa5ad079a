/**
 * The shop's alerts reading (docs/decisions/050-wishlist-alerts.md): the saved products whose refresh was
 * asked for (a platform webhook, a save's first reading, the reconciliation) are read from the Admin API in
 * batches and applied (./evaluate.server.ts). A product the platform no longer knows has its reading
 * dropped (products/delete marks its items). A transient failure is thrown for BullMQ to retry; the requests
 * stay in the database, so nothing asked for is lost.
 */
import type { Redis } from "ioredis";
import {
  deleteProductReading,
  deleteUnsavedReadings,
  findDueRefreshes,
  findShopsWithDueRefreshes,
  findStaleReadings,
  finishRefresh,
  postponeRefreshes,
  requestProductRefresh,
} from "~/data/catalogue-rows.server";
import { deleteAlertsBefore } from "~/data/alert-rows.server";
import { database, transaction } from "~/data/database.server";
import { findShopById } from "~/data/shop-rows.server";
import { getEnv } from "~/env.server";
import { enqueueAlertRefresh } from "~/jobs/queues.server";
import { logger } from "~/logger.server";
import { isDomainError } from "~/lib/domain-error";
import {
  createAdminCaller,
  NODES_PER_QUERY,
  PlatformUnavailable,
  POSTPONE_MS,
} from "~/services/platform/admin-api.server";
import { readAlertSettings } from "./alert-settings";
import { readProducts } from "./catalogue.server";
import { activeChannels, applyProductReading } from "./evaluate.server";
import { wakeAlertSender } from "./sender.server";

/** Batches per run: a shop with more waiting queues its next run and hands the worker back. */
const BATCHES_PER_RUN = 10;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How old a reading may grow before the reconciliation reads the product again. */
export const STALE_READING_MS = DAY_MS;

let lastQueueWarningAt = 0;

/** Asks for another reading of these products of the shop and queues the shop's run (best effort). */
export async function requestAlertRefresh(shopId: string, productIds: readonly string[], connection?: Redis) {
  if (productIds.length === 0) return;
  await requestProductRefresh(database(), shopId, productIds, new Date());
  await queueAlertRefresh(shopId, connection);
}

/** Queues the shop's run; never thrown: the requests are in the database and the sweep queues the run. */
export async function queueAlertRefresh(shopId: string, connection?: Redis) {
  try {
    await enqueueAlertRefresh(shopId, connection);
  } catch (error) {
    if (Date.now() - lastQueueWarningAt < 60_000) return;
    lastQueueWarningAt = Date.now();
    logger.warn({ err: error, shopId }, "alerts reading not queued; the worker's sweep will queue it");
  }
}

export interface RefreshRun {
  read: number;
  changed: number;
  alerts: number;
  gone: number;
  more?: boolean;
  skipped?: string;
  /** Readings put off an hour: the platform cannot be asked for the shop now. */
  postponed?: number;
}

/** Why the platform cannot be asked for the shop until later, or null when the failure is worth a retry. */
function cannotAskNow(error: unknown, finalAttempt: boolean): string | null {
  if (isDomainError(error, "platform_not_connected")) return "not connected";
  if (error instanceof PlatformUnavailable && (!error.transient || finalAttempt)) return error.reason;
  return null;
}

export async function runAlertRefresh({
  shopId,
  finalAttempt = true,
  connection,
}: {
  shopId: string;
  finalAttempt?: boolean;
  connection?: Redis;
}): Promise<RefreshRun> {
  const run: RefreshRun = { read: 0, changed: 0, alerts: 0, gone: 0 };
  const shop = await findShopById(database(), shopId);
  if (!shop || shop.uninstalledAt) return { ...run, skipped: shop ? "uninstalled" : "no such shop" };
  const settings = readAlertSettings(shop.alertSettings);
  const channels = await activeChannels(shopId, settings);
  const caller = createAdminCaller({ shopDomain: shop.domain, maxWaitMs: 30_000 });
  let firstDueAt: Date | null = null;
  let emailsOwed = false;
  for (let batch = 0; batch < BATCHES_PER_RUN; batch += 1) {
    const due = await findDueRefreshes(database(), shopId, { limit: NODES_PER_QUERY });
    if (due.length === 0) break;
    const readStartedAt = new Date();
    let readings: Awaited<ReturnType<typeof readProducts>>;
    try {
      readings = await readProducts(
        caller,
        due.map((row) => row.productId),
      );
    } catch (error) {
      const reason = cannotAskNow(error, finalAttempt);
      if (!reason) throw error;
      // Retrying cannot mend it now (no token, the token refused, a query refused) or the retries are spent:
      // the shop's readings wait an hour, so neither the sweep nor the retries spin on it.
      const until = new Date(Date.now() + POSTPONE_MS);
      const postponed = await postponeRefreshes(database(), shopId, { until });
      logger.warn(
        { shopId, postponed, until, reason, err: error },
        "alerts readings put off: the platform cannot be asked now",
      );
      return { ...run, postponed };
    }
    for (const [productId, reading] of readings) {
      run.read += 1;
      if (!reading) {
        run.gone += 1;
        await transaction(async (tx) => {
          await deleteProductReading(tx, shopId, [productId]);
          await finishRefresh(tx, shopId, productId, readStartedAt);
        });
        continue;
      }
      const result = await applyProductReading({ shopId, reading, readStartedAt, settings, channels });
      if (result.changed) run.changed += 1;
      run.alerts += result.alerts;
      emailsOwed ||= result.emailsOwed;
      if (result.firstDueAt && (!firstDueAt || result.firstDueAt < firstDueAt)) firstDueAt = result.firstDueAt;
    }
    if (batch === BATCHES_PER_RUN - 1) {
      run.more = true;
      await queueAlertRefresh(shopId, connection);
    }
  }
  if (emailsOwed) await wakeAlertSender(shopId, firstDueAt, connection);
  return run;
}

/** The sweep: shops whose refresh requests wait longer than `olderThanMs`. */
export async function queueDueAlertRefreshes(olderThanMs: number, connection?: Redis): Promise<string[]> {
  const shopIds = await findShopsWithDueRefreshes(database(), {
    before: new Date(Date.now() - olderThanMs),
    limit: 1_000,
  });
  for (const shopId of shopIds) await enqueueAlertRefresh(shopId, connection);
  return shopIds;
}

/**
 * The hourly maintenance: products read longer ago than STALE_READING_MS are asked for again (at most
 * `limit` a pass: the platform's webhooks carry the rest), alerts past their retention are deleted, and
 * readings of products nobody keeps any more are dropped.
 */
export async function maintainAlerts({
  now = new Date(),
  limit = 5_000,
  connection,
}: { now?: Date; limit?: number; connection?: Redis } = {}) {
  const stale = await findStaleReadings(database(), { before: new Date(now.getTime() - STALE_READING_MS), limit });
  const byShop = new Map<string, string[]>();
  for (const { shopId, productId } of stale) byShop.set(shopId, [...(byShop.get(shopId) ?? []), productId]);
  for (const [shopId, productIds] of byShop) {
    await requestProductRefresh(database(), shopId, productIds, now);
    await queueAlertRefresh(shopId, connection);
  }
  const retention = new Date(now.getTime() - getEnv().ALERT_RETENTION_DAYS * DAY_MS);
  const purged = await deleteAlertsBefore(database(), retention);
  const dropped = await deleteUnsavedReadings(database(), { before: new Date(now.getTime() - DAY_MS) });
  return { reread: stale.length, shops: byShop.size, purged, dropped };
}
