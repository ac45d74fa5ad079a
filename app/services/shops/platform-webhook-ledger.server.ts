/**
 * The ledger of platform webhooks (docs/decisions/015-platform-callers.md): each verified webhook is
 * recorded once, by its id and by the digest of its signed body, in the same transaction as its effects;
 * the records are kept long enough to recognise the platform's retries, then purged hourly.
 */
import { database, isUniqueViolation, transaction, type Tx } from "~/data/database.server";
import { deleteProcessedWebhooksBefore, insertProcessedWebhook } from "~/data/platform-webhook-rows.server";
import type { PlatformWebhookTopic } from "./platform-webhook-topics";

/**
 * A verified platform webhook: its `X-Shopify-Webhook-Id`, the SHA-256 of its signed body (hex), and the
 * shop the signed body names.
 */
export interface PlatformWebhookReceipt {
  id: string;
  topic: PlatformWebhookTopic;
  shopDomain: string;
  bodySha256: string;
}

/** What became of a verified webhook. */
export type PlatformWebhookOutcome =
  /** recorded and applied */
  | "processed"
  /** this webhook id or this signed body was processed before: nothing done */
  | "replay"
  /** recorded, but its signed content is older than what was already applied: nothing done */
  | "stale";

/** How long processed webhook ids are kept: well past the platform's retries of one delivery (48 hours). */
export const PLATFORM_WEBHOOK_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Records the webhook id and the digest of its signed body (`sha256:<hex>`), both in the `PlatformWebhook`
 * table, and applies its effects in the same transaction, so each webhook is processed once: a second
 * delivery of the same id (the platform's retry after a lost answer), or of the same signed body under
 * another id (the HMAC does not cover `X-Shopify-Webhook-Id`, so a captured request can be sent again with
 * a new one), changes nothing and answers "replay". `effects` may answer "stale" to have the webhook
 * recorded without effect.
 */
export async function processPlatformWebhookOnce(
  webhook: PlatformWebhookReceipt,
  effects: (tx: Tx) => Promise<"processed" | "stale"> = async () => "processed",
): Promise<PlatformWebhookOutcome> {
  const { id, topic, shopDomain, bodySha256 } = webhook;
  try {
    return await transaction(async (tx) => {
      const at = new Date();
      await insertProcessedWebhook(tx, { id, topic, shopDomain }, at);
      await insertProcessedWebhook(tx, { id: `sha256:${bodySha256}`, topic, shopDomain }, at);
      return effects(tx);
    });
  } catch (error) {
    if (isUniqueViolation(error)) return "replay";
    throw error;
  }
}

/** Forgets processed webhook ids and body digests older than the retention (the worker's maintenance job). */
export async function purgeProcessedPlatformWebhooks(now = new Date()): Promise<number> {
  return deleteProcessedWebhooksBefore(database(), new Date(now.getTime() - PLATFORM_WEBHOOK_RETENTION_MS));
}
