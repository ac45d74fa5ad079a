/**
 * The admin's Alerts page (docs/admin.md#alerts, docs/decisions/050-wishlist-alerts.md): the shop's rules
 * and email channel, saved through the settings document's own schema with the SMTP password sealed apart
 * (write-only: the page learns only whether one is set); a test email sent through the shop's own server
 * with the server's answer; previews of every template in every language; the log of alerts with the state
 * of the email carrying each, the suppression list, and the counts of the last 7, 30 and 90 days.
 */
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { z } from "zod";
import {
  countAlertsByKind,
  countEmailsSent,
  findAlertLogPage,
  findSuppressionPage,
  type AlertLogRow,
  type SuppressionRow,
  type TimeKey,
} from "~/data/alert-log-rows.server";
import { findSampleCatalogueVariants } from "~/data/catalogue-rows.server";
import { database } from "~/data/database.server";
import { findCatalogueTitles } from "~/data/item-rows.server";
import { findShopById, updateAlertSettingsText } from "~/data/shop-rows.server";
import { decodeCursor, encodeCursor } from "~/lib/cursor.server";
import { DomainError } from "~/lib/domain-error";
import { seal, UnreadableCiphertextError } from "~/lib/encryption.server";
import { rateLimitKey, rateLimitPrefix } from "~/lib/rate-limit-keys.server";
import { toTimestamp } from "~/lib/time";
import { logger } from "~/logger.server";
import { getRateLimitRedis, whenRedisReady } from "~/redis.server";
import { findCustomerContacts, platformDidNotAnswer } from "~/services/owners/customer-directory.server";
import { adminGraphql } from "~/services/platform/admin-api.server";
import {
  ALERT_KINDS,
  alertSettingsSchema,
  CHANGE_KINDS,
  readAlertSettings,
  type AlertKind,
  type AlertSettings,
} from "./alert-settings";
import { ALERT_EMAIL_LANGUAGES, type AlertEmailLanguage } from "./email-messages";
import { renderAlertEmail, type AlertEmailItem } from "./email-template";
import { classifySmtpFailure, openSmtpPassword, smtpTransport } from "./smtp.server";

export const LOG_PAGE_SIZE = 25;
export const SUPPRESSION_PAGE_SIZE = 25;
/** The counts' windows, in days. */
export const COUNT_WINDOWS = [7, 30, 90] as const;
/** What the log filters by: an email's state, or "none" for alerts no email carries. */
export const LOG_STATES = ["pending", "sending", "sent", "skipped", "failed", "none"] as const;
/** The emails the preview shows: one per kind (a reminder's included), and a digest of three changes. */
export const ALERT_TEMPLATES = ["back_in_stock", "price_dropped", "low_stock", "reminder", "digest"] as const;
export type AlertTemplate = (typeof ALERT_TEMPLATES)[number];
/** Test emails a shop may send in a minute: each is a connection to the merchant's server. */
export const TEST_EMAILS_PER_MINUTE = 5;
/** How long the page waits for the mail server's answer to a test email. */
export const TEST_EMAIL_TIMEOUT_MS = 20_000;

const DAY_MS = 24 * 60 * 60 * 1000;

// ---- Settings ----------------------------------------------------------------------------------------

/** A new SMTP password as typed: any characters but NUL and line breaks, which SMTP's AUTH cannot carry. */
const smtpPasswordSchema = z
  .string()
  .max(1_024)
  .refine((value) => !/[\r\n]/.test(value) && !value.includes("\u0000"), "must be one line");

/**
 * The page's save: the settings document, and the password when a new one was typed. Switched on, the email
 * channel needs the server and the from address: without them it would be on and send nothing.
 */
const saveSchema = alertSettingsSchema
  .extend({ smtpPassword: smtpPasswordSchema.optional() })
  .superRefine((input, context) => {
    if (!input.email.enabled) return;
    const required = "is required to send alert emails";
    if (input.email.smtp.host === "")
      context.addIssue({ code: "custom", path: ["email", "smtp", "host"], message: required });
    if (input.email.fromAddress === "")
      context.addIssue({ code: "custom", path: ["email", "fromAddress"], message: required });
  });

export interface AlertSettingsView {
  settings: AlertSettings;
  /** Whether an SMTP password is stored: the page never receives the password itself. */
  passwordSet: boolean;
}

async function shopOrThrow(shopId: string) {
  const shop = await findShopById(database(), shopId);
  if (!shop) throw new DomainError("not_found", "The shop is not installed.");
  return shop;
}

export async function getAlertSettings({ shopId }: { shopId: string }): Promise<AlertSettingsView> {
  const shop = await shopOrThrow(shopId);
  return { settings: readAlertSettings(shop.alertSettings), passwordSet: shop.smtpPasswordSealed !== null };
}

/**
 * Saves the page's settings (`input`: the settings document, and `smtpPassword` when the merchant typed a
 * new one; empty or absent keeps the stored one). Throws the schema's ZodError, every field's issue in it,
 * and writes nothing then.
 */
export async function saveAlertSettings({ shopId, input }: { shopId: string; input: unknown }) {
  const { smtpPassword, ...settings } = saveSchema.parse(input);
  const shop = await shopOrThrow(shopId);
  // The stored password belongs to the server it was saved for: a changed host, port, security or username
  // without a new password drops it, so it is never sent to a server someone else chose.
  const before = readAlertSettings(shop.alertSettings).email.smtp;
  const after = settings.email.smtp;
  const serverChanged =
    before.host !== after.host ||
    before.port !== after.port ||
    before.security !== after.security ||
    before.username !== after.username;
  await updateAlertSettingsText(database(), shopId, JSON.stringify(settings), new Date(), {
    // Bound to the shop's id, as ./smtp.server.ts opens it: a value copied to another shop does not open.
    smtpPasswordSealed: smtpPassword
      ? seal("smtp-password", smtpPassword, `smtp:${shopId}`)
      : serverChanged
        ? null
        : undefined,
  });
  logger.info({ shopId, passwordReplaced: Boolean(smtpPassword) }, "alert settings saved");
  return getAlertSettings({ shopId });
}

// ---- Sample emails: the preview and the test -----------------------------------------------------------

interface SampleProduct {
  title: string;
  imageUrl: string | null;
  productUrl: string;
  currency: string;
  priceMinor: number;
}

/** Products to show when the shop's catalogue has not been read yet, in the email's language. */
const NEUTRAL_TITLES: Record<AlertEmailLanguage, [string, string, string]> = {
  en: ["Linen shirt", "Wool scarf", "Canvas tote bag"],
  fr: ["Chemise en lin", "Écharpe en laine", "Sac cabas en toile"],
  de: ["Leinenhemd", "Wollschal", "Canvas-Tasche"],
  es: ["Camisa de lino", "Bufanda de lana", "Bolso de lona"],
};
const NEUTRAL_PRICES = [4_900, 3_500, 2_900];

/** Three products for the samples: the shop's as last read, then neutral ones. */
async function sampleProducts(shopId: string, shopDomain: string, language: AlertEmailLanguage) {
  const variants = await findSampleCatalogueVariants(database(), shopId, 3);
  const titles = await findCatalogueTitles(
    database(),
    shopId,
    variants.map((variant) => variant.productId),
  );
  const currency = variants[0]?.currency ?? "USD";
  const products: SampleProduct[] = variants.map((variant, index) => {
    const named = titles.get(variant.productId);
    return {
      title: named?.titleSnapshot || NEUTRAL_TITLES[language][index]!,
      imageUrl: variant.imageUrl,
      productUrl: named
        ? `https://${shopDomain}/products/${encodeURIComponent(named.handle)}`
        : `https://${shopDomain}/`,
      currency: variant.currency,
      priceMinor: variant.priceMinor,
    };
  });
  for (let index = products.length; index < 3; index++) {
    products.push({
      title: NEUTRAL_TITLES[language][index]!,
      imageUrl: null,
      productUrl: `https://${shopDomain}/`,
      currency,
      priceMinor: NEUTRAL_PRICES[index]!,
    });
  }
  return products;
}

function sampleItem(kind: AlertKind, product: SampleProduct): AlertEmailItem {
  return {
    kind,
    title: product.title,
    variantTitle: null,
    imageUrl: product.imageUrl,
    productUrl: product.productUrl,
    currency: product.currency,
    // A fifth off: what a merchant's first price drop often is.
    oldPriceMinor: kind === "price_dropped" ? Math.round(product.priceMinor * 1.25) : null,
    newPriceMinor: product.priceMinor,
    quantity: kind === "low_stock" ? 3 : null,
  };
}

/** A sample email of the template, as the shop's settings would send it (its links lead to the shop). */
async function renderSample({
  shopId,
  shopDomain,
  settings,
  template,
  language,
}: {
  shopId: string;
  shopDomain: string;
  settings: AlertSettings;
  template: AlertTemplate;
  language: AlertEmailLanguage;
}) {
  const products = await sampleProducts(shopId, shopDomain, language);
  const items =
    template === "digest"
      ? CHANGE_KINDS.map((kind, index) => sampleItem(kind, products[index]!))
      : [sampleItem(template, products[0]!)];
  return renderAlertEmail({
    locale: language,
    shopName: settings.email.fromName || shopDomain.replace(/\.myshopify\.com$/, ""),
    shopUrl: `https://${shopDomain}`,
    customerFirstName: "Alex",
    items,
    // A sample names no customer: its unsubscribe link leads to the shop, not to a real unsubscribe.
    unsubscribeUrl: `https://${shopDomain}/`,
  });
}

const previewSchema = z.object({
  template: z.enum(ALERT_TEMPLATES),
  language: z.enum(ALERT_EMAIL_LANGUAGES),
});

export interface AlertEmailPreview {
  template: AlertTemplate;
  language: AlertEmailLanguage;
  subject: string;
  html: string;
}

/** The template in the language, with sample data and the shop's saved brand name. Throws a ZodError. */
export async function previewAlertEmail({
  shopId,
  shopDomain,
  input,
}: {
  shopId: string;
  shopDomain: string;
  input: unknown;
}): Promise<AlertEmailPreview> {
  const { template, language } = previewSchema.parse(input);
  const { settings } = await getAlertSettings({ shopId });
  const { subject, html } = await renderSample({ shopId, shopDomain, settings, template, language });
  return { template, language, subject, html };
}

// ---- The test email ------------------------------------------------------------------------------------

const testEmailSchema = z.object({
  to: z.string().trim().max(254).pipe(z.email("must be an email address such as you@example.com")),
  /** The sample's language: the merchant's own, as the page sends it. */
  language: z.enum(ALERT_EMAIL_LANGUAGES).default("en"),
});

export type TestEmailResult = { sent: true; to: string; answer: string } | { sent: false; detail: string };

let testEmailLimiter: RateLimiterRedis | undefined;
function testEmailLimit(): RateLimiterRedis {
  testEmailLimiter ??= new RateLimiterRedis({
    storeClient: getRateLimitRedis(),
    keyPrefix: rateLimitPrefix("alert-test-email"),
    points: TEST_EMAILS_PER_MINUTE,
    duration: 60,
    // Redis unreachable: counted in this process, as the API's limits are (docs/decisions/008-rate-limit-keys.md).
    insuranceLimiter: new RateLimiterMemory({ points: TEST_EMAILS_PER_MINUTE, duration: 60 }),
  });
  return testEmailLimiter;
}

/** Waits for the work, or answers `onTimeout` after `ms`. */
function within<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Sends one sample alert email (back in stock, in `input.language`) to `input.to` through the shop's saved SMTP
 * settings, and says what the server answered: its acceptance, or its error. At most
 * TEST_EMAILS_PER_MINUTE a minute per shop. Throws a ZodError for an address that is not one.
 */
export async function sendTestEmail({
  shopId,
  shopDomain,
  input,
}: {
  shopId: string;
  shopDomain: string;
  input: unknown;
}): Promise<TestEmailResult> {
  const { to, language } = testEmailSchema.parse(input);
  const shop = await shopOrThrow(shopId);
  // Only to the shop's own contact address: the test email's words are the merchant's, and the form must not
  // send them to strangers from the app's address.
  const contact = await shopContactEmail({ shopDomain });
  if (!contact || contact.toLowerCase() !== to.toLowerCase()) {
    return {
      sent: false,
      detail: contact
        ? `Test emails go to the shop's contact email only (${contact}).`
        : "The shop's contact email could not be read from the platform: try again later.",
    };
  }
  const settings = readAlertSettings(shop.alertSettings);
  if (settings.email.smtp.host === "" || settings.email.fromAddress === "") {
    return { sent: false, detail: "Save the SMTP server and the from address before sending a test email." };
  }
  await whenRedisReady(getRateLimitRedis(), 1_000).catch(() => undefined);
  try {
    await testEmailLimit().consume(rateLimitKey(shopId));
  } catch (refusal) {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    const seconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
    return {
      sent: false,
      detail: `At most ${TEST_EMAILS_PER_MINUTE} test emails a minute: try again in ${seconds} s.`,
    };
  }
  let password: string | null;
  try {
    password = openSmtpPassword(shopId, shop.smtpPasswordSealed);
  } catch (error) {
    if (!(error instanceof UnreadableCiphertextError)) throw error;
    return { sent: false, detail: "The stored SMTP password cannot be read any more: enter it again and save." };
  }
  const transport = await smtpTransport(shopId, settings, password);
  if ("refused" in transport) return { sent: false, detail: transport.refused };
  const email = await renderSample({ shopId, shopDomain, settings, template: "back_in_stock", language });
  try {
    const info = (await within(
      transport.sendMail({
        from: { name: settings.email.fromName, address: settings.email.fromAddress },
        ...(settings.email.replyTo ? { replyTo: settings.email.replyTo } : {}),
        to,
        subject: email.subject,
        html: email.html,
        text: email.text,
      }),
      TEST_EMAIL_TIMEOUT_MS,
      () => new Error(`The mail server did not answer within ${TEST_EMAIL_TIMEOUT_MS / 1000} s.`),
    )) as { response?: string };
    logger.info({ shopId }, "test alert email sent");
    return { sent: true, to, answer: info.response ?? "" };
  } catch (error) {
    const { detail } = classifySmtpFailure(error);
    logger.info({ shopId, detail }, "test alert email not sent");
    return { sent: false, detail };
  }
}

const SHOP_CONTACT = `#graphql
  query WishlistShopContactEmail { shop { email } }`;

/** The shop's contact email, to offer as the test's recipient; "" when the platform does not answer. */
export async function shopContactEmail({ shopDomain }: { shopDomain: string }): Promise<string> {
  try {
    const { shop } = await adminGraphql({ shopDomain, query: SHOP_CONTACT });
    return shop.email;
  } catch (error) {
    if (!platformDidNotAnswer(error)) throw error;
    return "";
  }
}

// ---- The log, the suppression list and the counts ------------------------------------------------------

export interface PageLinks {
  previousCursor: string | null;
  nextCursor: string | null;
  /** The first page (no cursor): an empty one means there is nothing at all. */
  first: boolean;
}

export interface AlertLogEntry {
  id: string;
  at: string;
  customerId: string;
  /** The customer's name (else email) as the platform gives it now; null when it does not. */
  customerName: string | null;
  productId: string;
  /** The catalogue's title of the product; null when none is known. */
  productTitle: string | null;
  kind: AlertKind;
  channels: Array<"email" | "webhook" | "flow">;
  /** The state of the email carrying the alert; null: no email carries it. */
  emailState: string | null;
  /** Why it was skipped or failed, or the last failure of one tried again. */
  emailError: string | null;
  clickedAt: string | null;
}

export interface SuppressionEntry {
  customerId: string;
  customerName: string | null;
  reason: "unsubscribed" | "bounced";
  detail: string | null;
  since: string;
}

export interface AlertCountsView {
  days: readonly number[];
  /** Per kind, alerts made in each window. */
  made: Record<AlertKind, number[]>;
  sent: number[];
  clicks: number[];
  /** Clicked alerts per emailed alert, in each window; null where none was emailed. */
  clickRate: Array<number | null>;
}

export interface AlertsPageData extends AlertSettingsView {
  contactEmail: string;
  filters: { kind: AlertKind | ""; state: (typeof LOG_STATES)[number] | "" };
  log: { entries: AlertLogEntry[] } & PageLinks;
  suppressions: { entries: SuppressionEntry[] } & PageLinks;
  /** A cursor of the address was not one this page issued (edited, or of other filters). */
  cursorError: boolean;
  /** Names could not be read from the platform: customers are shown by id. */
  contactsUnavailable: boolean;
  counts: AlertCountsView;
  preview: AlertEmailPreview;
}

/** Where a page starts: the first page without a cursor; null for a cursor this listing did not issue. */
function readPosition(scope: string, cursor: string | null): { after?: TimeKey; before?: TimeKey } | null {
  if (!cursor) return {};
  try {
    const { a, b, id } = decodeCursor(scope, cursor);
    const at = a ?? b;
    if (typeof id !== "string" || typeof at !== "string" || Number.isNaN(Date.parse(at))) return null;
    return a !== undefined ? { after: { at: new Date(at), id } } : { before: { at: new Date(at), id } };
  } catch {
    return null;
  }
}

/** The rows to show and the links to the pages either side, from `limit + 1` rows read at `position`. */
function paged<Row>(
  rows: Row[],
  { scope, limit, position, keyOf }: { scope: string; limit: number; position: object; keyOf: (row: Row) => TimeKey },
): { rows: Row[] } & PageLinks {
  const backwards = "before" in position;
  const more = rows.length > limit;
  const shown = backwards ? rows.slice(more ? 1 : 0) : rows.slice(0, limit);
  const cursorAt = (row: Row | undefined, side: "a" | "b") => {
    if (!row) return null;
    const { at, id } = keyOf(row);
    return encodeCursor(scope, { [side]: at.toISOString(), id });
  };
  return {
    rows: shown,
    previousCursor: (backwards ? more : "after" in position) ? cursorAt(shown[0], "b") : null,
    nextCursor: (backwards ? true : more) ? cursorAt(shown.at(-1), "a") : null,
    first: Object.keys(position).length === 0,
  };
}

const oneOf = <T extends string>(values: readonly T[], value: string | null): T | "" =>
  values.includes(value as T) ? (value as T) : "";

/**
 * Everything the page shows. The address carries the log's filters (`kind`, `state`) and cursors (`cursor`
 * for the log, `suppressed` for the suppression list), each cursor signed for the shop and its filters.
 */
export async function loadAlertsPage({
  shopId,
  shopDomain,
  search,
  language,
}: {
  shopId: string;
  shopDomain: string;
  search: URLSearchParams;
  language: AlertEmailLanguage;
}): Promise<AlertsPageData> {
  const view = await getAlertSettings({ shopId });
  const kind = oneOf(ALERT_KINDS, search.get("kind"));
  const state = oneOf(LOG_STATES, search.get("state"));
  const logScope = `admin-alert-log:${shopId}:${JSON.stringify([kind, state])}`;
  const suppressionScope = `admin-alert-suppressions:${shopId}`;
  const logPosition = readPosition(logScope, search.get("cursor"));
  const suppressionPosition = readPosition(suppressionScope, search.get("suppressed"));

  const [logRows, suppressionRows, counts, contactEmail, preview] = await Promise.all([
    findAlertLogPage(database(), shopId, {
      kind: kind || undefined,
      state: state || undefined,
      ...logPosition,
      limit: LOG_PAGE_SIZE + 1,
    }),
    findSuppressionPage(database(), shopId, { ...suppressionPosition, limit: SUPPRESSION_PAGE_SIZE + 1 }),
    countAlerts(shopId),
    shopContactEmail({ shopDomain }),
    renderSample({ shopId, shopDomain, settings: view.settings, template: "back_in_stock", language }).then(
      ({ subject, html }): AlertEmailPreview => ({ template: "back_in_stock", language, subject, html }),
    ),
  ]);
  const log = paged(logRows, {
    scope: logScope,
    limit: LOG_PAGE_SIZE,
    position: logPosition ?? {},
    keyOf: (row: AlertLogRow) => ({ at: row.createdAt, id: row.id }),
  });
  const suppressions = paged(suppressionRows, {
    scope: suppressionScope,
    limit: SUPPRESSION_PAGE_SIZE,
    position: suppressionPosition ?? {},
    keyOf: (row: SuppressionRow) => ({ at: row.createdAt, id: row.customerId }),
  });

  const [{ contacts, unavailable }, titles] = await Promise.all([
    findCustomerContacts({
      shopId,
      shopDomain,
      customerIds: [...log.rows.map((row) => row.customerId), ...suppressions.rows.map((row) => row.customerId)],
    }),
    findCatalogueTitles(
      database(),
      shopId,
      log.rows.map((row) => row.productId),
    ),
  ]);
  const nameOf = (customerId: string) => {
    const contact = contacts.get(customerId);
    return contact?.name ?? contact?.email ?? null;
  };

  return {
    ...view,
    contactEmail,
    filters: { kind, state },
    log: {
      ...log,
      entries: (logPosition ? log.rows : []).map((row) => ({
        id: row.id,
        at: toTimestamp(row.createdAt),
        customerId: row.customerId,
        customerName: nameOf(row.customerId),
        productId: row.productId,
        productTitle: titles.get(row.productId)?.titleSnapshot || null,
        kind: row.kind as AlertKind,
        channels: [
          ...(row.messageId ? (["email"] as const) : []),
          ...(row.webhookEvent ? (["webhook"] as const) : []),
          ...(row.flowState ? (["flow"] as const) : []),
        ],
        emailState: row.messageId ? (row.messageState ?? null) : null,
        emailError: row.messageError ?? null,
        clickedAt: toTimestamp(row.clickedAt),
      })),
    },
    suppressions: {
      ...suppressions,
      entries: (suppressionPosition ? suppressions.rows : []).map((row) => ({
        customerId: row.customerId,
        customerName: nameOf(row.customerId),
        reason: row.reason === "bounced" ? "bounced" : "unsubscribed",
        detail: row.detail,
        since: toTimestamp(row.createdAt),
      })),
    },
    cursorError: logPosition === null || suppressionPosition === null,
    contactsUnavailable: unavailable,
    counts,
    preview,
  };
}

/** The counts of the last 7, 30 and 90 days (two statements, each over the widest window). */
export async function countAlerts(shopId: string, now = new Date()): Promise<AlertCountsView> {
  const since = COUNT_WINDOWS.map((days) => new Date(now.getTime() - days * DAY_MS));
  const [byKind, sent] = await Promise.all([
    countAlertsByKind(database(), shopId, since),
    countEmailsSent(database(), shopId, since),
  ]);
  const zero = () => COUNT_WINDOWS.map(() => 0);
  const made = Object.fromEntries(ALERT_KINDS.map((kind) => [kind, zero()])) as Record<AlertKind, number[]>;
  const emailed = zero();
  const clicks = zero();
  for (const row of byKind) {
    const windows = row.windows;
    if ((ALERT_KINDS as readonly string[]).includes(row.kind)) made[row.kind as AlertKind] = windows.map((w) => w.made);
    windows.forEach((window, index) => {
      emailed[index]! += window.emailed;
      clicks[index]! += window.clicked;
    });
  }
  return {
    days: COUNT_WINDOWS,
    made,
    sent,
    clicks,
    clickRate: emailed.map((count, index) => (count === 0 ? null : clicks[index]! / count)),
  };
}
