import { z } from "zod";

/**
 * The wishlist alerts' settings document (`Shop.alertSettings`, docs/decisions/050-wishlist-alerts.md): each
 * rule on or off with its threshold, the cooldown, and the email channel. Edited on the admin's Alerts page
 * only, so it is not part of the API's `Settings`. Every read goes through this schema, so a document written
 * by an older version gains new members with their defaults. The SMTP password is not here: it is sealed in
 * `Shop.smtpPasswordSealed`.
 */

/** A mailbox address as the From and Reply-To headers take it (no display name: that is `fromName`). */
const address = z
  .string()
  .trim()
  .max(254)
  .regex(/^[^@\s<>"]+@[^@\s<>"]+\.[^@\s<>"]+$/, "must be an email address such as wishlist@shop.example");

/** What an SMTP host may be: a DNS name or an IP literal, nothing that could carry a command or a path. */
const host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9.:[\]-]+$/, "must be a host name such as smtp.example.com");

/** Text shown in a header: one line. */
const oneLine = (max: number) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((value) => !/[\r\n]/.test(value) && !value.includes("\u0000"), "must be one line");

export const AUDIENCES = ["subscribed", "all"] as const;
export const SMTP_SECURITY = ["tls", "starttls", "none"] as const;

export const alertSettingsSchema = z.object({
  backInStock: z.object({ enabled: z.boolean().default(true) }).prefault({}),
  priceDrop: z
    .object({
      enabled: z.boolean().default(true),
      /** The smallest fall, in percent of the reference price, that alerts. */
      minPercent: z.number().int().min(1).max(90).default(10),
    })
    .prefault({}),
  lowStock: z
    .object({
      enabled: z.boolean().default(true),
      /** Alert when the units left fall to this or fewer. */
      threshold: z.number().int().min(1).max(1_000).default(5),
    })
    .prefault({}),
  /**
   * Reminders of items saved `afterDays` ago and not bought: off unless the merchant turns them on (a reminder
   * is marketing the shopper did not ask for by saving), once per item, at most once a week per customer.
   */
  reminders: z
    .object({
      enabled: z.boolean().default(false),
      afterDays: z.number().int().min(1).max(365).default(14),
    })
    .prefault({}),
  /** One alert per customer, product and kind in this many days. */
  cooldownDays: z.number().int().min(1).max(90).default(7),
  email: z
    .object({
      enabled: z.boolean().default(false),
      /**
       * subscribed: only customers whose email marketing consent is SUBSCRIBED (the platform's word, read
       * when sending); all: every customer with an address (the merchant answers for the lawful basis).
       */
      audience: z.enum(AUDIENCES).default("subscribed"),
      /** Emails per minute at most, for the shop. */
      ratePerMinute: z.number().int().min(1).max(10_000).default(60),
      fromName: oneLine(100).default(""),
      fromAddress: z.union([address, z.literal("")]).default(""),
      replyTo: z.union([address, z.literal("")]).default(""),
      smtp: z
        .object({
          host: z.union([host, z.literal("")]).default(""),
          port: z.number().int().min(1).max(65_535).default(587),
          /** tls: TLS from the first byte (465); starttls: upgrade required (587); none: plain (local servers). */
          security: z.enum(SMTP_SECURITY).default("starttls"),
          username: oneLine(254).default(""),
        })
        .prefault({}),
    })
    .prefault({}),
});

export type AlertSettings = z.output<typeof alertSettingsSchema>;
/** What a change of a product tells a customer (./rules.ts). */
export type ChangeKind = "back_in_stock" | "price_dropped" | "low_stock";
export const CHANGE_KINDS: readonly ChangeKind[] = ["back_in_stock", "price_dropped", "low_stock"];
/** Every kind of alert: the changes, and the reminder of an item saved a while ago and not bought. */
export type AlertKind = ChangeKind | "reminder";
export const ALERT_KINDS: readonly AlertKind[] = [...CHANGE_KINDS, "reminder"];

/**
 * The most alerts one email carries. A digest gathers a customer's alerts of its window, and a shop-wide
 * sale could otherwise put every product of their lists (20 lists of 500 by default) in one email, which no
 * one reads and which outgrew the worker's heap. An alert made while the customer's open email is full goes
 * out on the other channels only (docs/decisions/050-wishlist-alerts.md).
 */
export const MAX_DIGEST_ITEMS = 25;

export const DEFAULT_ALERT_SETTINGS: AlertSettings = alertSettingsSchema.parse({});

/** The stored document, with defaults for what it lacks; an unreadable one reads as the defaults. */
export function readAlertSettings(json: string): AlertSettings {
  try {
    const parsed = alertSettingsSchema.safeParse(JSON.parse(json));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through: a document that is not JSON is the defaults
  }
  return DEFAULT_ALERT_SETTINGS;
}

/** Whether the email channel can send: switched on and told where and as whom. */
export function emailReady(settings: AlertSettings): boolean {
  const { email } = settings;
  return email.enabled && email.smtp.host !== "" && email.fromAddress !== "";
}
