/**
 * The platform's mandatory compliance webhooks, as work (docs/decisions/020-compliance-and-lifecycle.md):
 *  - customers/data_request: the customer's wishlist data (lists, items with dates, share links) written as
 *    a JSON file the merchant downloads from the admin or through `GET /v1/compliance/data-requests`;
 *  - customers/redact: the customer's lists, items, share tokens and idempotency records deleted; the events
 *    that name them erased (never sent again: docs/decisions/028-redacted-events.md), with their queued
 *    deliveries and the receivers' answers logged for them; their id taken out of import checkpoints and
 *    daily rollups (which keep counting); the data request files about them, and transfer files naming them,
 *    deleted. Files and checkpoints that name them by the webhook's email alone are matched too: the email
 *    is kept sealed on the request's row until the redaction has run, then erased with their id;
 *  - shop/redact: the shop's every row and stored file deleted, sessions and processed webhook ids included.
 * The web route records a `ComplianceRequest` row in the same transaction as the processed webhook id and
 * queues a job, best effort; the worker runs it with retries, and its sweep queues a row BullMQ lost.
 */
import { Readable } from "node:stream";
import type { Redis } from "ioredis";
import {
  clearCustomerOfRequests,
  clearDeliverySnippets,
  deleteIdempotencyOfCustomer,
  deleteListsWithItems,
  deleteProcessedWebhooksOfShop,
  deleteShopRow,
  deleteShopRowsChunk,
  findComplianceRequest,
  findComplianceRequestsOfShop,
  findCustomerDataRequestFiles,
  findEventsMentioning,
  findItemsOfLists,
  findListsOfCustomer,
  findQueuedComplianceRequests,
  findShopComplianceRequest,
  findTransferFileKeys,
  hasPlatformRequest,
  insertComplianceRequest,
  renameActiveOwner,
  updateComplianceRequest,
  updateEventData,
  type ComplianceRequestRow,
} from "~/data/compliance-rows.server";
import { deleteAlertDataOfCustomer, findAlertDataOfCustomer } from "~/data/alert-rows.server";
import {
  deleteAnonymousConversions,
  deleteCustomerConversions,
  findCustomerConversions,
} from "~/data/conversion-rows.server";
import { database, transaction } from "~/data/database.server";
import { deleteSessionsOfShop } from "~/data/session-rows.server";
import { findShopById, findShopForAuth } from "~/data/shop-rows.server";
import { findEndpointIdsOfShop } from "~/data/webhook-endpoint-rows.server";
import { COMPLIANCE_TOPICS, type ComplianceTopic } from "~/services/shops/platform-webhook-topics";
import {
  enqueueComplianceJob,
  holdsComplianceJob,
  removeJobsOfShop,
  rewriteDeliveryBodies,
  withinMs,
} from "~/jobs/queues.server";
import { DomainError } from "~/lib/domain-error";
import { open, seal } from "~/lib/encryption.server";
import { newId } from "~/lib/ids";
import { forgetShopperRateLimits, forgetShopRateLimits } from "~/lib/rate-limit-keys.server";
import { deleteCustomerMetafieldSync } from "~/data/metafield-sync-rows.server";
import { findImportCheckpointsMentioning, saveTransferJobCheckpoint } from "~/data/transfer-job-rows.server";
import { deleteDeliveryDuesOfEvents } from "~/data/webhook-delivery-due-rows.server";
import { isRedactedEventData, REDACTED_EVENT_DATA } from "~/services/events/redacted-events";
import { ownerKey } from "~/services/owners/owner";
import { logger } from "~/logger.server";
import type { StoredEvent } from "~/services/events/relay.server";
import { envelope } from "~/services/webhooks/fanout.server";
import { getStorage } from "~/services/storage/index.server";
import {
  processPlatformWebhookOnce,
  type PlatformWebhookOutcome,
  type PlatformWebhookReceipt,
} from "~/services/shops/platform-webhook-ledger.server";

export { COMPLIANCE_TOPICS, type ComplianceTopic };

/** What a compliance webhook names besides the shop (already checked against the signed body). */
export interface ComplianceSubject {
  /** The platform's customer id, for the customer topics. */
  customerId: string | null;
  /** The customer's email, for customers/redact (when the webhook names one). */
  customerEmail?: string | null;
  /** `data_request.id` of a customers/data_request. */
  platformRequestId: string | null;
}

/** The most a request waits for the queue before answering without it (the sweep queues it later). */
const ENQUEUE_WAIT_MS = 3_000;

/**
 * Records a verified compliance webhook once and queues its work. A shop this app does not know (never
 * installed, or already erased by shop/redact) holds nothing to export or erase: answered "unknown_shop",
 * nothing recorded, so a replay after an erasure leaves no trace of the shop either.
 */
export async function receiveComplianceWebhook(
  receipt: PlatformWebhookReceipt & { topic: ComplianceTopic },
  subject: ComplianceSubject,
): Promise<PlatformWebhookOutcome | "unknown_shop"> {
  const shop = await findShopForAuth(database(), receipt.shopDomain);
  if (!shop) return "unknown_shop";
  const id = newId("complianceRequest");
  const outcome = await processPlatformWebhookOnce(receipt, async (tx) => {
    // A data request the shop holds already (by the platform's id) is a replay older than the processed
    // webhook ids are kept (7 days): recorded, and no second file is written.
    const { platformRequestId } = subject;
    if (
      receipt.topic === "customers/data_request" &&
      platformRequestId !== null &&
      (await hasPlatformRequest(tx, shop.id, receipt.topic, platformRequestId))
    ) {
      return "stale";
    }
    await insertComplianceRequest(
      tx,
      {
        id,
        shopId: shop.id,
        topic: receipt.topic,
        customerId: subject.customerId,
        customerEmailSealed: subject.customerEmail ? sealCustomerEmail(subject.customerEmail, shop.id, id) : null,
        platformRequestId: subject.platformRequestId,
      },
      new Date(),
    );
    return "processed";
  });
  if (outcome === "processed") {
    try {
      await withinMs(ENQUEUE_WAIT_MS, enqueueComplianceJob({ id, topic: receipt.topic }));
    } catch (error) {
      logger.warn({ err: error, requestId: id }, "compliance job not queued yet; the worker's sweep will queue it");
    }
  }
  return outcome;
}

const EMAIL_PURPOSE = "compliance-email";
/** The sealed email opens only on the row it was written for (its shop and request id). */
const emailOwner = (shopId: string, requestId: string) => `compliance-request\0${shopId}\0${requestId}`;

function sealCustomerEmail(email: string, shopId: string, requestId: string): string {
  return seal(EMAIL_PURPOSE, email.trim().toLowerCase(), emailOwner(shopId, requestId));
}

/** The redaction's customer email (lower case), or null when the webhook named none. */
function customerEmailOf(request: ComplianceRequestRow): string | null {
  if (!request.customerEmailSealed) return null;
  return open(EMAIL_PURPOSE, request.customerEmailSealed, emailOwner(request.shopId, request.id));
}

/** Queues the requests still `queued` that BullMQ does not hold (the maintenance sweep). Returns their ids. */
export async function queueStrandedComplianceRequests({
  receivedBefore,
  connection,
}: {
  receivedBefore: Date;
  connection?: Redis;
}): Promise<string[]> {
  const queued: string[] = [];
  for (const row of await findQueuedComplianceRequests(database(), { before: receivedBefore, limit: 500 })) {
    if (await holdsComplianceJob(row.id, connection)) continue;
    await enqueueComplianceJob({ id: row.id, topic: row.topic as ComplianceTopic }, connection);
    queued.push(row.id);
  }
  return queued;
}

/** What a run did, kept on the row as JSON (counts only: never the customer's data). */
export type ComplianceSummary = Record<string, number | string>;

/**
 * Runs one request in the worker. Safe to run again after a crash at any point: each step finds what is
 * left to do (a redaction takes the customer id off the row only at the very end). A request already done,
 * or whose shop was erased meanwhile, is left as it is.
 */
export async function runComplianceRequest(
  requestId: string,
  { connection }: { connection?: Redis } = {},
): Promise<ComplianceSummary | null> {
  const request = await findComplianceRequest(database(), requestId);
  if (!request || request.status === "succeeded" || request.status === "skipped") return null;
  await updateComplianceRequest(database(), request.id, { status: "running", startedAt: new Date() });
  const summary =
    request.topic === "customers/data_request"
      ? await exportCustomerData(request)
      : request.topic === "customers/redact"
        ? await redactCustomer(request, connection)
        : await redactShop(request, connection);
  return summary;
}

/** Marks a request failed for good (its job's last attempt failed); it stays listed, with the reason. */
export async function failComplianceRequest(requestId: string, message: string): Promise<void> {
  await updateComplianceRequest(database(), requestId, { status: "failed", error: message, finishedAt: new Date() });
}

function requireCustomer(request: ComplianceRequestRow): string {
  if (!request.customerId) throw new DomainError("invalid", "The request names no customer.");
  return request.customerId;
}

/** The export's storage key: `compliance/<shop id>/<request id>.json`. */
const dataRequestKey = (request: ComplianceRequestRow) => `compliance/${request.shopId}/${request.id}.json`;

async function exportCustomerData(request: ComplianceRequestRow): Promise<ComplianceSummary> {
  const customerId = requireCustomer(request);
  const shop = await findShopById(database(), request.shopId);
  if (!shop) return {};
  const lists = await findListsOfCustomer(database(), request.shopId, customerId);
  const items = await findItemsOfLists(
    database(),
    request.shopId,
    lists.map((list) => list.id),
  );
  const alertData = await findAlertDataOfCustomer(database(), request.shopId, customerId);
  // Theirs, and those of the guest lists they merged at login: what a redaction erases as theirs.
  const conversions = await findCustomerConversions(
    database(),
    request.shopId,
    customerId,
    lists.flatMap((list) => (list.anonymousId ? [list.anonymousId] : [])),
  );
  const document = {
    shopDomain: shop.domain,
    customerId,
    platformRequestId: request.platformRequestId,
    requestedAt: request.receivedAt.toISOString(),
    generatedAt: new Date().toISOString(),
    lists: lists
      // A retired guest list that points to this customer holds no items: it is only the way an old share
      // link reaches their list. Its token is listed as one of the customer's share links.
      .map((list) => ({
        id: list.id,
        name: list.name,
        default: list.isDefault === true,
        retired: list.retiredAt !== null,
        createdAt: list.createdAt.toISOString(),
        updatedAt: list.updatedAt.toISOString(),
        share: list.shareToken ? { enabled: list.shareEnabled, token: list.shareToken } : null,
        items: items
          .filter((item) => item.listId === list.id)
          .map((item) => ({
            productId: item.productId,
            variantId: item.variantId || null,
            handle: item.handle,
            title: item.titleSnapshot,
            addedAt: item.addedAt.toISOString(),
            // The shopper's own words and intent: personal data, exported as kept (issue 28).
            note: item.note || null,
            quantity: item.quantity,
            purchasedAt: item.purchasedAt?.toISOString() ?? null,
            // When they were reminded of it (the reminder itself is among the alerts below).
            remindedAt: item.remindedAt?.toISOString() ?? null,
          })),
      })),
    // Wishlist alerts (docs/decisions/050-wishlist-alerts.md): what the customer was told of, the emails (no
    // address is kept: it is read from the platform when sending), the clicks, and an unsubscription.
    alerts: alertData.alerts.map((alert) => ({
      kind: alert.kind,
      productId: alert.productId,
      variantId: alert.variantId || null,
      listId: alert.listId,
      oldPriceMinor: alert.oldPriceMinor,
      newPriceMinor: alert.newPriceMinor,
      quantity: alert.quantity,
      currency: alert.currency,
      createdAt: alert.createdAt.toISOString(),
      clickedAt: alert.clickedAt?.toISOString() ?? null,
      emailId: alert.messageId,
    })),
    alertEmails: alertData.messages.map((message) => ({
      id: message.id,
      state: message.state,
      sentAt: message.sentAt?.toISOString() ?? null,
      note: message.error,
      createdAt: message.createdAt.toISOString(),
    })),
    alertSuppression: alertData.suppression
      ? { reason: alertData.suppression.reason, since: alertData.suppression.createdAt.toISOString() }
      : null,
    // Their orders' lines that bought a product they had saved (docs/decisions/052-attribution.md).
    purchases: conversions.map((conversion) => ({
      orderId: conversion.orderId,
      lineItemId: conversion.lineItemId,
      productId: conversion.productId,
      variantId: conversion.variantId || null,
      quantity: conversion.quantity,
      amountMinor: conversion.amountMinor,
      currency: conversion.currency,
      presentmentAmountMinor: conversion.presentmentAmountMinor,
      presentmentCurrency: conversion.presentmentCurrency,
      savedAt: conversion.savedAt.toISOString(),
      orderedAt: conversion.orderedAt.toISOString(),
      afterAlert: conversion.source || null,
      refundedQuantity: conversion.refundedQuantity,
      refundedMinor: conversion.refundedMinor,
      cancelledAt: conversion.cancelledAt?.toISOString() ?? null,
    })),
  };
  const key = dataRequestKey(request);
  await getStorage().write(key, Readable.from([JSON.stringify(document, null, 2)]), "application/json");
  const summary = {
    lists: lists.length,
    items: items.length,
    alerts: alertData.alerts.length,
    purchases: conversions.length,
  };
  await updateComplianceRequest(database(), request.id, {
    status: "succeeded",
    resultKey: key,
    summary: JSON.stringify(summary),
    error: null,
    finishedAt: new Date(),
  });
  return summary;
}

/**
 * Whether an outbox event names the customer: their id, one of their lists, or one of their share tokens (a
 * guest's token that moved to the customer's list at login was shared from the guest list). Such an event is
 * erased whole (docs/decisions/028-redacted-events.md); its other members (a guest's anonymous id, products,
 * a share link) are the customer's activity too.
 */
function eventNamesCustomer(
  data: string,
  customerId: string,
  listIds: ReadonlySet<string>,
  tokens: ReadonlySet<string>,
): boolean {
  if (isRedactedEventData(data)) return false;
  const parsed = JSON.parse(data) as Record<string, unknown>;
  return (
    parsed.customerId === customerId ||
    (typeof parsed.listId === "string" && listIds.has(parsed.listId)) ||
    (typeof parsed.shareToken === "string" && tokens.has(parsed.shareToken))
  );
}

/** How a redaction knows the customer: their id, and the webhook's email (lower case) when it named one. */
interface RedactedCustomer {
  customerId: string;
  email: string | null;
}

const namesCustomer = (value: string, { customerId, email }: RedactedCustomer) =>
  value === customerId || (email !== null && value.trim().toLowerCase() === email);

/**
 * An import's checkpoint (TransferJob.checkpoint: its totals and first issues, kept so a retry resumes with
 * them) without the customer: an issue's `value` that is their id or their email (in any case) is dropped,
 * the issue (line, reason) stays. Null when the checkpoint does not name them.
 */
function redactedCheckpoint(checkpoint: string, customer: RedactedCustomer): string | null {
  const parsed = JSON.parse(checkpoint) as { tally?: { issues?: Array<{ value?: string }> } };
  let changed = false;
  for (const issue of parsed.tally?.issues ?? []) {
    if (typeof issue.value === "string" && namesCustomer(issue.value, customer)) {
      delete issue.value;
      changed = true;
    }
  }
  return changed ? JSON.stringify(parsed) : null;
}

async function redactCustomer(request: ComplianceRequestRow, connection?: Redis): Promise<ComplianceSummary> {
  const customerId = requireCustomer(request);
  const customer: RedactedCustomer = { customerId, email: customerEmailOf(request) };
  const { shopId } = request;
  const shop = await findShopById(database(), shopId);
  if (!shop) return {};
  const lists = await findListsOfCustomer(database(), shopId, customerId);
  const listIds = lists.map((list) => list.id);
  const listSet = new Set(listIds);
  const tokens = new Set(lists.flatMap((list) => (list.shareToken ? [list.shareToken] : [])));
  // Events first, their queued deliveries with them: the queue (Redis) holds each delivery's body until the
  // job is removed, and a retry would send the customer's id after the erasure. A queued body becomes the
  // erased event's envelope, which the delivery job recognises and does not send.
  const events = (await findEventsMentioning(database(), shopId, { customerId, listIds, tokens: [...tokens] })).filter(
    (event) => eventNamesCustomer(event.data, customerId, listSet, tokens),
  );
  const eventIds = events.map((event) => event.id);
  const endpointIds = await findEndpointIdsOfShop(database(), shopId);
  const rewrittenJobs = await rewriteDeliveryBodies(
    events.flatMap((event) =>
      endpointIds.map((endpointId) => ({
        eventId: event.id,
        endpointId,
        body: envelope({ ...event, type: event.type as StoredEvent["type"], data: REDACTED_EVENT_DATA }, shop.domain),
      })),
    ),
    connection,
  );
  // The storefront's per-shopper rate-limit counter is keyed by the customer id (it expires within a minute).
  const limits = await forgetShopperRateLimits(shopId, ownerKey({ kind: "customer", customerId }), connection);
  const files = await findCustomerDataRequestFiles(database(), shopId, customerId);
  for (const file of files) if (file.resultKey) await getStorage().remove(file.resultKey);
  // Export files, import uploads and reports that name the customer (by id, or by email alone) are deleted
  // (the merchant exports again without them); the rows stay, and their downloads answer that the file is gone.
  let transferFiles = 0;
  for (const key of await findTransferFileKeys(database(), shopId)) {
    if (await storedFileMentions(key, customer)) {
      await getStorage().remove(key);
      transferFiles += 1;
    }
  }

  // An import's checkpoint keeps the first issues of its file, whose values may be the customer's id or email.
  const checkpoints = await redactImportCheckpoints(shopId, customer);

  const counts = await transaction(async (tx) => {
    for (const id of eventIds) await updateEventData(tx, shopId, id, REDACTED_EVENT_DATA);
    // Their deliveries are owed no more: the reconciliation would queue them again only to end them unsent.
    await deleteDeliveryDuesOfEvents(tx, shopId, eventIds);
    const deliveries = await clearDeliverySnippets(tx, shopId, eventIds);
    const idempotency = await deleteIdempotencyOfCustomer(tx, shopId, { customerId, listIds, tokens: [...tokens] });
    const days = await renameActiveOwner(tx, shopId, `c:${customerId}`, `r:${request.id}`);
    const deleted = await deleteListsWithItems(tx, shopId, listIds);
    await clearCustomerOfRequests(tx, shopId, customerId);
    // A metafield write still owed for them: the customer is gone from the shop, nothing is written.
    await deleteCustomerMetafieldSync(tx, shopId, customerId);
    const alerts = await deleteAlertDataOfCustomer(tx, shopId, customerId);
    // Their purchases, and those of the guest lists they merged at login; the daily rollups keep the figures,
    // which name no customer or order (docs/decisions/052-attribution.md).
    const purchases =
      (await deleteCustomerConversions(tx, shopId, customerId)) +
      (await deleteAnonymousConversions(
        tx,
        shopId,
        lists.flatMap((list) => (list.anonymousId ? [list.anonymousId] : [])),
      ));
    return { ...deleted, ...alerts, purchases, events: eventIds.length, deliveries, idempotency, activeDays: days };
  });
  const summary = {
    ...counts,
    queuedDeliveries: rewrittenJobs,
    rateLimitKeys: limits,
    dataRequestFiles: files.filter((f) => f.resultKey).length,
    transferFiles,
    importCheckpoints: checkpoints,
  };
  await updateComplianceRequest(database(), request.id, {
    status: "succeeded",
    customerId: null,
    customerEmailSealed: null,
    summary: JSON.stringify(summary),
    error: null,
    finishedAt: new Date(),
  });
  return summary;
}

/**
 * Takes the customer's id and email out of the checkpoints of the shop's imports. Each is a compare-and-set on the
 * checkpoint read (the one an import attempt also uses), so a batch an import commits meanwhile is not lost:
 * the checkpoint is read again and redacted again. An attempt running then finds its checkpoint changed and
 * steps aside; the job is resumed from the redacted checkpoint (docs/imports.md, two attempts at one import).
 */
async function redactImportCheckpoints(shopId: string, customer: RedactedCustomer): Promise<number> {
  const values = [customer.customerId, ...(customer.email ? [customer.email] : [])];
  let redacted = 0;
  for (let round = 0; round < 10; round++) {
    const jobs = await findImportCheckpointsMentioning(database(), shopId, values);
    let raced = false;
    for (const job of jobs) {
      const next = redactedCheckpoint(job.checkpoint, customer);
      if (next === null) continue;
      if (await saveTransferJobCheckpoint(database(), shopId, job.id, next, job.checkpoint)) redacted += 1;
      else raced = true;
    }
    if (!raced) return redacted;
  }
  throw new Error("an import kept changing its checkpoint during the redaction; the job runs the redaction again");
}

/**
 * Whether a stored file holds the customer's id as a whole number (not inside a longer run of digits) or
 * their email as a whole address in any case (not inside a longer one), read as a stream with the chunk
 * boundaries overlapped. A file already gone mentions nothing.
 */
async function storedFileMentions(key: string, { customerId, email }: RedactedCustomer): Promise<boolean> {
  if (!(await getStorage().stat(key))) return false;
  const patterns = [new RegExp(`(?<![0-9])${customerId}(?![0-9])`)];
  if (email) {
    const escaped = email.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    patterns.push(new RegExp(`(?<![A-Za-z0-9._%+-])${escaped}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])`, "i"));
  }
  const overlap = Math.max(customerId.length, email?.length ?? 0) + 2;
  let tail = "";
  for await (const chunk of await getStorage().read(key)) {
    const text = tail + Buffer.from(chunk as Buffer).toString("utf8");
    if (patterns.some((pattern) => pattern.test(text))) return true;
    tail = text.slice(-overlap);
  }
  return false;
}

/** Rows deleted per statement when erasing a shop's large tables. */
const ERASE_CHUNK = 2_000;

/** The storage areas that hold a shop's files: `<area>/<shop id>/...`. */
const STORAGE_AREAS = ["imports", "reports", "exports", "compliance"] as const;

async function redactShop(request: ComplianceRequestRow, connection?: Redis): Promise<ComplianceSummary> {
  const shop = await findShopById(database(), request.shopId);
  if (!shop) return {};
  if (shop.uninstalledAt === null) {
    // The platform sends shop/redact 48 hours after an uninstall; a shop that installed the app again since
    // is in use, and erasing it would destroy a live shop's data. Kept as a record, with the reason.
    const summary = { skipped: "The shop has the app installed again; nothing was erased." };
    await updateComplianceRequest(database(), request.id, {
      status: "skipped",
      summary: JSON.stringify(summary),
      finishedAt: new Date(),
    });
    logger.warn({ shopId: shop.id, requestId: request.id }, "shop/redact for an installed shop: nothing erased");
    return summary;
  }
  let files = 0;
  for (const area of STORAGE_AREAS) files += await getStorage().removeAll(`${area}/${shop.id}`);
  const rows: Record<string, number> = {};
  for (const table of ["Item", "WebhookDelivery", "Event", "IdempotencyRecord"] as const) {
    rows[table] = 0;
    for (;;) {
      const deleted = await transaction((tx) => deleteShopRowsChunk(tx, table, shop.id, ERASE_CHUNK));
      rows[table] += deleted;
      if (deleted < ERASE_CHUNK) break;
    }
  }
  // The rest (lists, keys, endpoints, jobs, uploads, settings, rollups, this request's row) goes with the
  // shop row; sessions and processed webhook ids name the domain, not the id.
  await transaction(async (tx) => {
    rows.Session = await deleteSessionsOfShop(tx, shop.domain);
    rows.PlatformWebhook = await deleteProcessedWebhooksOfShop(tx, shop.domain);
    await deleteShopRow(tx, shop.id);
  });
  const limits = await forgetShopRateLimits(shop.id, connection);
  // Queued deliveries and transfers carry the shop's id (and deliveries its domain) in Redis.
  const jobs = await removeJobsOfShop(shop.id, connection);
  const summary = { files, rateLimitKeys: limits, queueJobs: jobs, ...rows };
  logger.info({ shopId: shop.id, requestId: request.id, ...summary }, "shop erased (shop/redact)");
  return summary;
}

/** A shop's compliance requests for the admin and the API, newest first. */
export function listComplianceRequests({
  shopId,
  topics,
  after,
  limit = 100,
}: {
  shopId: string;
  topics?: ComplianceTopic[];
  after?: string;
  limit?: number;
}) {
  return findComplianceRequestsOfShop(database(), shopId, {
    topics: topics ?? [...COMPLIANCE_TOPICS],
    before: after,
    limit,
  });
}

export async function getDataRequest({ shopId, requestId }: { shopId: string; requestId: string }) {
  const row = await findShopComplianceRequest(database(), shopId, requestId);
  if (!row || row.topic !== "customers/data_request") {
    throw new DomainError("not_found", "The shop has no data request with this id.");
  }
  return row;
}

/** A signed download link (24 hours) for a finished data request's file; null when there is none. */
export async function dataRequestLink(row: ComplianceRequestRow) {
  if (row.status !== "succeeded" || !row.resultKey) return null;
  return getStorage().presignDownload({
    key: row.resultKey,
    filename: `customer-data-${row.id}.json`,
    contentType: "application/json",
    expiresInSeconds: 24 * 60 * 60,
  });
}
