/**
 * The shop's SMTP server for alert emails (docs/decisions/050-wishlist-alerts.md), through nodemailer. The
 * merchant names the host, so it is held to the webhook deliveries' rule (./webhooks/ssrf.server.ts): the
 * name is resolved here, every address it gives must be public (or inside WEBHOOK_ALLOWED_NETWORKS), and the
 * connection goes to that checked address with TLS still verifying the name. Transports are pooled per shop
 * and settings, and closed when the settings change or the worker stops.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import nodemailer, { type Transporter } from "nodemailer";
import { open } from "~/lib/encryption.server";
import { logger } from "~/logger.server";
import { refusalReason } from "~/services/webhooks/ssrf.server";
import type { AlertSettings } from "./alert-settings";

/** The password sealed for the shop (bound to its id), or null. */
export function openSmtpPassword(shopId: string, sealed: string | null): string | null {
  if (!sealed) return null;
  return open("smtp-password", sealed, `smtp:${shopId}`);
}

/** Why the host may not be connected to (a private address, no address), or null. */
export async function resolveSmtpHost(host: string): Promise<{ address: string } | { refused: string }> {
  const bare = host.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(bare) ? [bare] : (await lookup(bare, { all: true })).map((entry) => entry.address);
  } catch {
    return { refused: `${host} does not resolve` };
  }
  if (addresses.length === 0) return { refused: `${host} does not resolve` };
  for (const address of addresses) {
    if (refusalReason(address)) {
      logger.warn({ host, reason: refusalReason(address) }, "SMTP host refused: not a public address");
      return { refused: `${host} resolves to an address that is not public; SMTP servers must be public` };
    }
  }
  return { address: addresses[0]! };
}

interface PooledTransport {
  key: string;
  transporter: Transporter;
}

const pool = new Map<string, PooledTransport>();

/** A transport for the shop's settings: the pooled one while the settings and the password stay the same. */
export async function smtpTransport(
  shopId: string,
  settings: AlertSettings,
  password: string | null,
): Promise<Transporter | { refused: string }> {
  const { smtp } = settings.email;
  const resolved = await resolveSmtpHost(smtp.host);
  if ("refused" in resolved) return resolved;
  const key = JSON.stringify([smtp, password, resolved.address]);
  const held = pool.get(shopId);
  if (held?.key === key) return held.transporter;
  held?.transporter.close();
  const transporter = nodemailer.createTransport({
    host: resolved.address,
    port: smtp.port,
    secure: smtp.security === "tls",
    requireTLS: smtp.security === "starttls",
    ignoreTLS: smtp.security === "none",
    tls: { servername: isIP(smtp.host.replace(/^\[|\]$/g, "")) ? undefined : smtp.host },
    ...(smtp.username ? { auth: { user: smtp.username, pass: password ?? "" } } : {}),
    pool: true,
    maxConnections: 4,
    maxMessages: 1_000,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  });
  pool.set(shopId, { key, transporter });
  return transporter;
}

/** Closes every pooled transport (the worker stops). */
export function closeSmtpTransports(): void {
  for (const { transporter } of pool.values()) transporter.close();
  pool.clear();
}

/** An SMTP failure, as nodemailer reports it. */
interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
  message?: string;
}

/**
 * What a failed send means: `refused` (a 5xx answer to the recipient or the message: the address is
 * suppressed and the message not tried again), else `transient` (a 4xx, the server unreachable, a timeout,
 * a refused login: tried again later).
 */
export function classifySmtpFailure(error: unknown): { refused: boolean; detail: string } {
  const failure = (error ?? {}) as SmtpError;
  // Servers quote the refused address; it is the customer's, and is stored and logged nowhere.
  const detail = withoutAddresses(failure.response ?? failure.message ?? String(error)).slice(0, 300);
  const permanent = typeof failure.responseCode === "number" && failure.responseCode >= 500;
  const aboutRecipient = failure.code === "EENVELOPE" || failure.code === "EMESSAGE";
  return { refused: permanent && aboutRecipient, detail };
}

/** The text with every email address in it replaced by `<address>`. */
export function withoutAddresses(text: string): string {
  return text.replace(/<[^<>\s]*@[^<>\s]*>|[^\s<>"'()[\],;:]+@[^\s<>"'()[\],;:]+/g, "<address>");
}
