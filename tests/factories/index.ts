import { randomBytes, randomUUID } from "node:crypto";
import { database } from "~/data/database.server";
import { insertEvent } from "~/data/event-rows.server";
import { insertAttempts } from "~/data/webhook-delivery-rows.server";
import { insertEndpoint } from "~/data/webhook-endpoint-rows.server";
import { newId } from "~/lib/ids";
import type { StoredEvent } from "~/services/events/relay.server";
import { createApiKey } from "~/services/keys/api-keys.server";
import { ensureShop } from "~/services/shops/shops.server";
import type { SessionValues } from "~/data/session-rows.server";

/** Test data built through the same services the app uses. */
export async function createShop(domain = `shop-${randomBytes(4).toString("hex")}.myshopify.com`) {
  return ensureShop({ domain });
}

export async function createShopWithKey(label = "test key") {
  const shop = await createShop();
  const { key, secret } = await createApiKey({ shopId: shop.id, label });
  return { shop, key, secret };
}

export async function createList(
  shopId: string,
  owner: { customerId: string } | { anonymousId: string } = { anonymousId: randomUUID() },
  data: { isDefault?: true | null; name?: string } = {},
) {
  const at = new Date();
  return database()
    .insertInto("List")
    .values({ id: newId("list"), shopId, ...owner, ...data, createdAt: at, updatedAt: at })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The owner an item of this list keeps (`Item.ownerKey`, decision 055), for items inserted directly. */
export function ownerKeyOf(list: { customerId: string | null; anonymousId: string | null }): string {
  return list.customerId !== null ? `c:${list.customerId}` : `a:${list.anonymousId}`;
}

/** An outbox event as the relay hands it to the fan-out (not written to the database). */
export function storedEvent(shopId: string): StoredEvent {
  return {
    id: `evt_${randomUUID().replaceAll("-", "")}`,
    shopId,
    type: "item.added",
    data: JSON.stringify({ listId: "lst_x", customerId: null, anonymousId: null, item: {}, count: 1 }),
    createdAt: new Date(),
  };
}

/** A webhook endpoint row (not through the service, so the per-shop limit does not get in the way). */
export async function createWebhookEndpoint(shopId: string, url = "https://receiver.example/hooks") {
  const { encryptSecret, generateWebhookSecret } = await import("~/services/webhooks/endpoint-secrets.server");
  const secret = generateWebhookSecret();
  const id = newId("webhookEndpoint");
  const endpoint = await insertEndpoint(
    database(),
    {
      id,
      shopId,
      url,
      events: JSON.stringify(["item.added"]),
      secretCiphertext: encryptSecret(secret, { endpointId: id, shopId }),
    },
    new Date(),
  );
  return { endpoint, secret };
}

/** An event and one logged delivery attempt of it to the endpoint (for the delivery log and redelivery). */
export async function createDelivery(
  shopId: string,
  endpointId: string,
  { nextRetryAt = null }: { nextRetryAt?: Date | null } = {},
) {
  const eventId = newId("event");
  const at = new Date();
  await insertEvent(database(), {
    id: eventId,
    shopId,
    type: "ping",
    data: JSON.stringify({ endpointId, message: "hi" }),
    createdAt: at,
  });
  const id = newId("delivery");
  await insertAttempts(database(), [
    {
      id,
      shopId,
      endpointId,
      eventId,
      status: "failed",
      statusCode: 500,
      durationMs: 12,
      error: "HTTP 500",
      responseSnippet: null,
      nextRetryAt,
      at,
    },
  ]);
  return { id, eventId, endpointId, attempt: 1 };
}

/** A platform session row: offline (no expiry) unless `expires` is given, with no user fields. */
export function sessionRow(shop: string, id: string, values: Partial<SessionValues> = {}): SessionValues {
  const expires = values.expires ?? null;
  return {
    id,
    shop,
    state: "s",
    isOnline: expires !== null,
    scope: null,
    expires,
    accessToken: "t",
    userId: null,
    firstName: null,
    lastName: null,
    email: null,
    accountOwner: false,
    locale: null,
    collaborator: false,
    emailVerified: false,
    refreshToken: null,
    refreshTokenExpires: null,
    ...values,
  };
}

/**
 * Puts the shop on a plan, as an approved subscription would (the billing tests go through the platform's
 * flow; tests of a gated feature itself start here).
 */
export async function setShopPlan(shopId: string, plan: "FREE" | "GROWTH" | "PLUS") {
  await database()
    .updateTable("Shop")
    .set({
      plan,
      planUpdatedAt: new Date(),
      subscriptionId: plan === "FREE" ? null : `gid://shopify/AppSubscription/${Date.now()}`,
      subscriptionStatus: plan === "FREE" ? null : "ACTIVE",
      graceEndsAt: null,
    })
    .where("id", "=", shopId)
    .execute();
}
