/**
 * The links in an alert email (docs/decisions/050-wishlist-alerts.md), each signed with a key of its own
 * purpose (HMAC-SHA256 under SERVICE_SECRET, the previous secret also accepted during a rotation):
 *  - the one-click unsubscribe link (RFC 8058) names the shop and the customer, and never expires: an
 *    address must be able to leave whenever the email is read;
 *  - the product link names the shop, the message, the alert and the product's handle; it goes through the
 *    app proxy on the shop's own domain, records the click and lands on the product page.
 * A link whose signature does not verify names nothing: it is refused.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { getEnv } from "~/env.server";
import { keysFor } from "~/lib/encryption.server";

const unsubscribeClaims = z.object({
  v: z.literal(1),
  s: z.string().min(1),
  c: z.string().regex(/^\d{1,20}$/),
  l: z.string().max(35).optional(),
});
const clickClaims = z.object({
  v: z.literal(1),
  s: z.string().min(1),
  m: z.string().min(1),
  a: z.string().min(1),
  h: z.string().min(1).max(255),
});

export type UnsubscribeClaims = z.infer<typeof unsubscribeClaims>;
export type ClickClaims = z.infer<typeof clickClaims>;

function mac(key: Buffer, kind: string, body: string): Buffer {
  return createHmac("sha256", key).update(`${kind}.${body}`).digest();
}

function sign(kind: string, claims: object): string {
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const { key } = keysFor("alert-link")[0]!;
  return `${body}.${mac(key, kind, body).toString("base64url")}`;
}

/** The claims of a token this app signed for `kind`; null for anything else (tampered, cut, another kind). */
function verify<T>(kind: string, token: string, schema: z.ZodType<T>): T | null {
  const match = /^([A-Za-z0-9_-]{1,1024})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!match) return null;
  const [, body, signature] = match as unknown as [string, string, string];
  const given = Buffer.from(signature, "base64url");
  // One spelling only: base64url decoding ignores the last character's unused bits, so four strings decode
  // to the same bytes.
  if (given.toString("base64url") !== signature) return null;
  const valid = keysFor("alert-link").some(({ key }) => {
    const expected = mac(key, kind, body);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!valid) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(body, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The app's public origin (SHOPIFY_APP_URL), where the unsubscribe page is served. */
function appOrigin(): string {
  const env = getEnv();
  return new URL(env.SHOPIFY_APP_URL ?? `http://localhost:${env.PORT}`).origin;
}

export function unsubscribeUrl({
  shopId,
  customerId,
  locale,
}: {
  shopId: string;
  customerId: string;
  locale?: string;
}) {
  const token = sign("unsubscribe", { v: 1, s: shopId, c: customerId, ...(locale ? { l: locale } : {}) });
  return `${appOrigin()}/alerts/unsubscribe/${token}`;
}

export function readUnsubscribeToken(token: string): UnsubscribeClaims | null {
  return verify("unsubscribe", token, unsubscribeClaims);
}

/** The product link: the app proxy's path on the shop's domain (/apps/service, shopify.app.toml). */
export function clickUrl({
  shopDomain,
  shopId,
  messageId,
  alertId,
  handle,
}: {
  shopDomain: string;
  shopId: string;
  messageId: string;
  alertId: string;
  handle: string;
}) {
  const token = sign("click", { v: 1, s: shopId, m: messageId, a: alertId, h: handle });
  return `https://${shopDomain}/apps/service/alerts/click/${token}`;
}

export function readClickToken(token: string): ClickClaims | null {
  return verify("click", token, clickClaims);
}
