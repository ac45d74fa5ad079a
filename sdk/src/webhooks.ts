/**
 * Verifies a webhook delivery of the service: `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` of
 * `<t>.<raw body>`, keyed with the endpoint's secret (`whsec_...`). Web Crypto only, so the same code runs in Node
 * (20 and later), edge workers, Deno and browsers. The HMAC is computed once, then compared with each `v1` in
 * constant time.
 */
export interface VerifyWebhookOptions {
  /** How old (or how far ahead) a signature may be, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The time to check against, in Unix seconds (default: now). */
  now?: number;
}

export type WebhookVerification =
  | { ok: true; timestamp: number; event: WebhookEvent }
  | { ok: false; reason: "malformed-signature" | "stale" | "bad-signature" | "malformed-body" };

/** The envelope every delivery carries (its `data` depends on `type`; see the webhooks guide). */
export interface WebhookEvent {
  id: string;
  type: string;
  /** The shop's domain, `example.myshopify.com`. */
  shopDomain: string;
  createdAt: string;
  data: Record<string, unknown>;
  [member: string]: unknown;
}

const encoder = new TextEncoder();

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(new ArrayBuffer(hex.length / 2));
  for (let index = 0; index < bytes.length; index++) bytes[index] = parseInt(hex.slice(index * 2, index * 2 + 2), 16);
  return bytes;
}

/** Equal bytes, in a time that depends on the length only (no early exit at the first difference). */
function sameBytes(left: Uint8Array, right: Uint8Array): boolean {
  if (left.length !== right.length) return false;
  let difference = 0;
  for (let index = 0; index < left.length; index++) difference |= left[index]! ^ right[index]!;
  return difference === 0;
}

/**
 * Checks a delivery before anything else reads it. Pass the raw body exactly as received (a string, or its
 * bytes), not a re-serialised parse. A delivery is authentic when one `v1` signature matches and `t` is within the
 * tolerance; then `event` is the parsed body. Deduplicate by `event.id`: a retry carries the same id.
 */
export async function verifyWebhook(
  rawBody: string | ArrayBuffer | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<WebhookVerification> {
  const parts = (signatureHeader ?? "").split(",").map((part) => part.trim());
  const t = parts.find((part) => part.startsWith("t="))?.slice(2) ?? "";
  const signatures = parts
    .filter((part) => part.startsWith("v1="))
    .map((part) => part.slice(3))
    .filter((hex) => /^[0-9a-f]{64}$/.test(hex));
  if (!/^\d{1,12}$/.test(t) || signatures.length === 0) return { ok: false, reason: "malformed-signature" };
  const timestamp = Number(t);
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? 300)) return { ok: false, reason: "stale" };
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : new Uint8Array(rawBody as ArrayBuffer);
  const signed = new Uint8Array(new ArrayBuffer(t.length + 1 + body.length));
  signed.set(encoder.encode(`${t}.`));
  signed.set(body, t.length + 1);
  const key = await globalThis.crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  // One HMAC of the body, whatever the number of `v1` signatures: the header is the sender's to write, and
  // one verification per signature would let an unsigned request cost hundreds of HMACs of a large body.
  const expected = new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", key, signed));
  let valid = false;
  for (const hex of signatures) if (sameBytes(expected, hexBytes(hex))) valid = true;
  if (!valid) return { ok: false, reason: "bad-signature" };
  try {
    return { ok: true, timestamp, event: JSON.parse(new TextDecoder().decode(body)) as WebhookEvent };
  } catch {
    return { ok: false, reason: "malformed-body" };
  }
}
