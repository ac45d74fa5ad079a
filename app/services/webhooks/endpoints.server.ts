import { prisma, sql } from "~/db.server";
import { getEnv } from "~/env.server";
import type { WebhookEndpoint } from "~/generated/prisma-sqlite/client";
import { newId } from "~/lib/ids";
import { AppError } from "~/lib/problems";
import { insertEvent } from "~/services/events/outbox.server";
import { encryptSecret, generateWebhookSecret } from "./secrets.server";

/** The event types an endpoint may subscribe to (spec 6); `ping` is sent only by the test call. */
export const SUBSCRIBABLE_EVENTS = ["item.added", "item.removed", "list.merged", "list.shared"] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

export const MAX_ENDPOINTS_PER_SHOP = 20;

export function endpointEvents(endpoint: Pick<WebhookEndpoint, "events">): SubscribableEvent[] {
  return JSON.parse(endpoint.events) as SubscribableEvent[];
}

/** https only, unless WEBHOOK_ALLOW_HTTP (development); no credentials in the URL. */
export function checkEndpointUrl(raw: string): string {
  const url = new URL(raw);
  const allowHttp = getEnv().WEBHOOK_ALLOW_HTTP;
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:")) {
    throw new AppError("validation-error", {
      detail: allowHttp ? "url must be an http or https URL." : "url must be an https URL.",
      errors: [{ pointer: "#/url", detail: allowHttp ? "must use http or https" : "must use https" }],
    });
  }
  if (url.username || url.password) {
    throw new AppError("validation-error", {
      detail: "url must not carry credentials; verify deliveries with the signing secret instead.",
      errors: [{ pointer: "#/url", detail: "must not contain a user name or password" }],
    });
  }
  return url.toString();
}

/**
 * Creates the endpoint, at most MAX_ENDPOINTS_PER_SHOP per shop even under concurrent requests: the count
 * and the insert run in one transaction that holds the shop's row lock (PostgreSQL) or the database's write
 * lock (SQLite, taken at BEGIN), so parallel creations are counted one after another.
 */
export async function createEndpoint({
  shopId,
  url,
  events,
}: {
  shopId: string;
  url: string;
  events: SubscribableEvent[];
}) {
  const checkedUrl = checkEndpointUrl(url);
  const secret = generateWebhookSecret();
  const id = newId("webhookEndpoint");
  const secretCiphertext = encryptSecret(secret, { endpointId: id, shopId });
  await sql().transaction(async (tx) => {
    if (tx.engine === "postgres") await tx.get(`SELECT "id" FROM "Shop" WHERE "id" = ? FOR UPDATE`, [shopId]);
    const row = await tx.get<{ n: number | string }>(
      `SELECT COUNT(*) AS "n" FROM "WebhookEndpoint" WHERE "shopId" = ?`,
      [shopId],
    );
    if (Number(row?.n ?? 0) >= MAX_ENDPOINTS_PER_SHOP) {
      throw new AppError("conflict", {
        detail: `A shop may have at most ${MAX_ENDPOINTS_PER_SHOP} webhook endpoints.`,
      });
    }
    const now = new Date();
    await tx.run(
      `INSERT INTO "WebhookEndpoint" ("id", "shopId", "url", "events", "secretCiphertext", "failCount", "createdAt", "updatedAt") ` +
        `VALUES (?, ?, ?, ?, ?, 0, ?, ?)`,
      [id, shopId, checkedUrl, JSON.stringify([...new Set(events)]), secretCiphertext, now, now],
    );
  });
  const endpoint = await prisma.webhookEndpoint.findUniqueOrThrow({ where: { id } });
  return { endpoint, secret };
}

export async function listEndpoints({ shopId }: { shopId: string }) {
  return prisma.webhookEndpoint.findMany({ where: { shopId }, orderBy: { id: "asc" } });
}

export async function getEndpoint({ shopId, endpointId }: { shopId: string; endpointId: string }) {
  const endpoint = await prisma.webhookEndpoint.findFirst({ where: { id: endpointId, shopId } });
  if (!endpoint) throw new AppError("not-found", { detail: "No webhook endpoint with this id in this shop." });
  return endpoint;
}

/** Deleting removes the endpoint and its delivery log; its pending deliveries find it gone and send nothing. */
export async function deleteEndpoint({ shopId, endpointId }: { shopId: string; endpointId: string }) {
  const { count } = await prisma.webhookEndpoint.deleteMany({ where: { id: endpointId, shopId } });
  if (count === 0) throw new AppError("not-found", { detail: "No webhook endpoint with this id in this shop." });
}

/** Re-enables a disabled endpoint and resets its consecutive-failure count (additive). */
export async function enableEndpoint({ shopId, endpointId }: { shopId: string; endpointId: string }) {
  await getEndpoint({ shopId, endpointId });
  return prisma.webhookEndpoint.update({ where: { id: endpointId }, data: { disabledAt: null, failCount: 0 } });
}

/**
 * POST /webhooks/{id}/test: a `ping` event in the outbox, addressed to this endpoint only; it then takes
 * the same path as every event (relay, queue, signed delivery, retries, delivery log).
 */
export async function sendTestEvent({ shopId, endpointId }: { shopId: string; endpointId: string }) {
  const endpoint = await getEndpoint({ shopId, endpointId });
  if (endpoint.disabledAt) {
    throw new AppError("conflict", {
      detail: "The endpoint is disabled. Re-enable it (POST /v1/webhooks/{id}/enable) before testing it.",
    });
  }
  return sql().transaction((tx) =>
    insertEvent(tx, {
      shopId,
      type: "ping",
      data: { endpointId, message: "Test event from the wishlist service." },
    }),
  );
}

export async function listDeliveries({
  shopId,
  endpointId,
  after,
  limit,
}: {
  shopId: string;
  endpointId: string;
  after?: string;
  limit: number;
}) {
  await getEndpoint({ shopId, endpointId });
  return prisma.webhookDelivery.findMany({
    where: { shopId, endpointId, ...(after ? { id: { lt: after } } : {}) },
    orderBy: { id: "desc" },
    take: limit + 1,
    include: { event: { select: { type: true } } },
  });
}
