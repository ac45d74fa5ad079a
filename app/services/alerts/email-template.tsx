/**
 * The wishlist alert email (back in stock, price drop, low stock, a reminder; one item or a digest), rendered from React
 * Email components into HTML and, from the same document, plain text (docs/decisions/049-alert-email-templates.md).
 * Pure: what to say comes in, subject, HTML and text go out; sending, signing links and choosing the
 * recipients belong to the caller. Every value is text to React, so a product title cannot become markup.
 * No tracking pixel and no remote font: the only images are the products'.
 */
import { randomBytes } from "node:crypto";
import { Body } from "@react-email/body";
import { Button } from "@react-email/button";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Heading } from "@react-email/heading";
import { Hr } from "@react-email/hr";
import { Html } from "@react-email/html";
import { Img } from "@react-email/img";
import { Link } from "@react-email/link";
import { Preview } from "@react-email/preview";
import { render, toPlainText } from "@react-email/render";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import type { CSSProperties } from "react";
import { escapeHtml } from "~/lib/html";
import { translateCatalogue, type CatalogueTranslator } from "~/i18n/message-catalogue";
import { negotiateLocale } from "~/lib/negotiate-locale";
import { currencyDigits } from "~/lib/money";
import {
  ALERT_EMAIL_LANGUAGES,
  ALERT_EMAIL_MESSAGES,
  type AlertEmailLanguage,
  type AlertEmailMessages,
} from "./email-messages";

import type { AlertKind } from "./alert-settings";

export type { AlertKind };

export interface AlertEmailItem {
  kind: AlertKind;
  title: string;
  /** null or the platform's "Default Title" (a product without options): not shown. */
  variantTitle: string | null;
  imageUrl: string | null;
  /** The signed click-through link, used as is by the image and the button. */
  productUrl: string;
  /** ISO 4217, the shop's currency. */
  currency: string;
  /** Minor units (./money.ts); the price before the drop, null for the other kinds. */
  oldPriceMinor: number | null;
  /** Minor units; the current price, shown for every kind when known. */
  newPriceMinor: number | null;
  /** Low stock: units left. */
  quantity: number | null;
}

export interface AlertEmailInput {
  /** The shopper's storefront locale ("fr", "pt-BR"): the nearest of our languages, else English. */
  locale: string;
  shopName: string;
  shopUrl: string;
  customerFirstName: string | null;
  /** One item is a single alert, several are a digest. */
  items: AlertEmailItem[];
  /** The signed one-click link, shown in the footer. */
  unsubscribeUrl: string;
}

export interface RenderedAlertEmail {
  subject: string;
  html: string;
  text: string;
}

/**
 * The email's language and the locale its numbers are formatted in. A region of one of our languages keeps
 * its formats (fr-CA writes CAD as "12,50 $", not "12,50 $CA"); another language takes the nearest of ours
 * by CLDR's matching (ca is es, pt-BR is en) and formats as that language does, so the words and the
 * numbers agree.
 */
/** The words of the pages the email's links open (unsubscribe), in the email's language, `lang` with them. */
export function alertPageWords(locale: string): { lang: string; t: CatalogueTranslator<AlertEmailMessages>["t"] } {
  const { language, formatLocale } = resolveAlertEmailLocale(locale);
  return { lang: language, t: translateCatalogue(formatLocale, ALERT_EMAIL_MESSAGES[language]).t };
}

export function resolveAlertEmailLocale(locale: string): { language: AlertEmailLanguage; formatLocale: string } {
  const requested = locale.trim().replaceAll("_", "-"); // fr_CA, as some systems spell it
  const language = negotiateLocale(requested, [...ALERT_EMAIL_LANGUAGES], "en") as AlertEmailLanguage;
  try {
    const [canonical] = Intl.getCanonicalLocales(requested);
    if (canonical && new Intl.Locale(canonical).language === language) return { language, formatLocale: canonical };
  } catch {
    // not a BCP 47 tag: the language's own formats
  }
  return { language, formatLocale: language };
}

function formatPrice(formatLocale: string, currency: string, minor: number): string {
  const format = new Intl.NumberFormat(formatLocale, { style: "currency", currency });
  return format.format(minor / 10 ** currencyDigits(currency));
}

/** Subject, HTML and plain text of an alert email. Throws on no item or an unknown currency code. */
export async function renderAlertEmail(input: AlertEmailInput): Promise<RenderedAlertEmail> {
  if (input.items.length === 0) throw new Error("an alert email needs at least one item");
  const { language, formatLocale } = resolveAlertEmailLocale(input.locale);
  const messages = translateCatalogue(formatLocale, ALERT_EMAIL_MESSAGES[language]);
  const [first] = input.items;
  const subject = oneLine(
    input.items.length === 1 && first
      ? messages.t(`subject.${first.kind}`, { title: first.title })
      : messages.plural(onlyReminders(input.items) ? "subject.reminders" : "subject.digest", input.items.length),
  );
  const email = (
    <AlertEmail input={input} language={language} formatLocale={formatLocale} messages={messages} subject={subject} />
  );
  const html = await render(email);
  // What render(email, { plainText: true }) returns, from the HTML already rendered: React renders once, not
  // twice (half the time of an email, which matters when a restock mails thousands of shoppers).
  const text = toPlainText(html, PLAIN_TEXT_OPTIONS);
  return { subject, html, text };
}

/**
 * Renders alert emails, rendering each distinct email once: a restock mails thousands of shoppers the same
 * words, and React's renderer and html-to-text are most of an email's cost (docs/benchmarks.md, "Alerts").
 * What differs between recipients (the first name, the signed links) is rendered as slots, unguessable tokens
 * of this renderer, and put in per recipient: escaped as React escapes text in the HTML, as it is in the plain
 * text (which is not wrapped, so a value's length moves nothing else). The result is the email
 * `renderAlertEmail` renders for the same input, byte for byte (tests/services/alerts/email-template.test.ts).
 * Keeps the last `maxShapes` emails; one renderer serves one process.
 */
export function createAlertEmailRenderer({ maxShapes = 200 }: { maxShapes?: number } = {}) {
  const token = `wlslot${randomBytes(9).toString("hex")}`;
  const slot = (name: string) => `${token}${name}z`;
  const slots = new RegExp(`${token}(n|u|p\\d+)z`, "g");
  const shapes = new Map<string, Promise<RenderedAlertEmail>>();

  async function shapeOf(input: AlertEmailInput, name: string | null): Promise<RenderedAlertEmail> {
    const key = JSON.stringify([
      input.locale,
      input.shopName,
      input.shopUrl,
      name !== null,
      input.items.map(({ productUrl: _url, ...item }) => item),
    ]);
    let shape = shapes.get(key);
    if (shape) {
      shapes.delete(key); // kept as the most recently used
    } else {
      wholeRenders += 1;
      shape = renderAlertEmail({
        ...input,
        customerFirstName: name === null ? null : slot("n"),
        unsubscribeUrl: slot("u"),
        items: input.items.map((item, index) => ({ ...item, productUrl: slot(`p${index}`) })),
      });
      shape.catch(() => shapes.delete(key));
    }
    shapes.set(key, shape);
    if (shapes.size > maxShapes) shapes.delete(shapes.keys().next().value!);
    return shape;
  }

  let wholeRenders = 0;
  async function render(input: AlertEmailInput): Promise<RenderedAlertEmail> {
    const name = firstNameOf(input.customerFirstName);
    const shape = await shapeOf(input, name);
    const valueOf = (slotName: string) => {
      if (slotName === "n") return name ?? "";
      if (slotName === "u") return input.unsubscribeUrl;
      return input.items[Number(slotName.slice(1))]!.productUrl;
    };
    return {
      subject: shape.subject,
      html: shape.html.replace(slots, (_match, slotName: string) => escapeHtml(valueOf(slotName))),
      text: shape.text.replace(slots, (_match, slotName: string) => valueOf(slotName)),
    };
  }
  return {
    render,
    /** How many emails were rendered whole (the rest were filled in). */
    get wholeRenders() {
      return wholeRenders;
    },
  };
}

/**
 * The first name as the email shows it: trimmed, each run of white space one space (as the plain text
 * shows it anyway), null when nothing is left. NULs dropped and lone surrogates made U+FFFD, as React's
 * renderer writes them: the renderer's filled-in name must be the whole render's, byte for byte.
 */
function firstNameOf(name: string | null): string | null {
  const shown = name
    ?.replaceAll("\u0000", "")
    .replace(/\p{Cs}/gu, "\ufffd")
    .replace(/[\s\u200b]+/gu, " ")
    .trim();
  return shown ? shown : null;
}

// A heading in capitals shouts in plain text; the default of html-to-text is uppercase.
const PLAIN_TEXT_OPTIONS = { selectors: [{ selector: "h1", options: { uppercase: false } }] };

/**
 * A header value is one line: a title with a line break in it must not start another header. Control
 * characters and line separators become spaces; the no-break spaces of French typography stay.
 */
function oneLine(value: string): string {
  return value
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/ {2,}/g, " ")
    .trim();
}

type Messages = CatalogueTranslator<AlertEmailMessages>;

interface AlertEmailProps {
  input: AlertEmailInput;
  language: AlertEmailLanguage;
  formatLocale: string;
  messages: Messages;
  subject: string;
}

/** A digest of reminders only says so: it tells of items saved a while ago, not of changes. */
const onlyReminders = (items: readonly AlertEmailItem[]) => items.every((item) => item.kind === "reminder");

function AlertEmail({ input, language, formatLocale, messages, subject }: AlertEmailProps) {
  const single = input.items.length === 1 ? input.items[0] : undefined;
  const reminders = onlyReminders(input.items);
  const heading = single
    ? messages.t(`heading.${single.kind}`)
    : messages.t(reminders ? "heading.reminder" : "heading.digest");
  const intro = single
    ? messages.t(`intro.${single.kind}`)
    : messages.plural(reminders ? "intro.reminders" : "intro.digest", input.items.length);
  const name = firstNameOf(input.customerFirstName);
  const greeting = name ? messages.t("greeting.named", { name }) : messages.t("greeting.anonymous");
  return (
    <Html lang={language} dir="ltr">
      <Head>
        <title>{subject}</title>
        {/* The colours are chosen for a light background; a client's dark mode may still invert them. */}
        <meta name="color-scheme" content="light" />
        <meta name="supported-color-schemes" content="light" />
      </Head>
      <Body style={styles.body}>
        <Preview>{intro}</Preview>
        <Container style={styles.container}>
          <Section style={styles.header}>
            <Link href={input.shopUrl} style={styles.brand}>
              {input.shopName}
            </Link>
          </Section>
          <Section style={styles.content}>
            <Heading as="h1" style={styles.heading}>
              {heading}
            </Heading>
            <Text style={styles.paragraph}>{greeting}</Text>
            <Text style={styles.paragraph}>{intro}</Text>
            {input.items.map((item, index) => (
              <AlertItem key={index} item={item} formatLocale={formatLocale} messages={messages} />
            ))}
            <Text style={styles.signOff}>
              {messages.t("signOff")}
              <br />
              {messages.t("signature", { shopName: input.shopName })}
            </Text>
          </Section>
          <Hr style={styles.rule} />
          <Section style={styles.footer}>
            <Text style={styles.footerText}>
              {messages.plural("footer.reason", input.items.length, { shopName: input.shopName })}
            </Text>
            <Text style={styles.footerText}>
              <Link href={input.unsubscribeUrl} style={styles.footerLink}>
                {messages.t("footer.unsubscribe")}
              </Link>
            </Text>
          </Section>
        </Container>
      </Body>
    </Html>
  );
}

function AlertItem({
  item,
  formatLocale,
  messages,
}: {
  item: AlertEmailItem;
  formatLocale: string;
  messages: Messages;
}) {
  const price = (minor: number) => formatPrice(formatLocale, item.currency, minor);
  const variant = item.variantTitle?.trim();
  const showVariant = variant && variant !== "Default Title";
  return (
    <Section style={styles.item}>
      {item.imageUrl ? (
        // The image's link is left out of the plain text, where it would be a bare URL: the button's stays.
        <Link href={item.productUrl} data-skip-in-text>
          <Img src={item.imageUrl} alt={item.title} width={160} style={styles.image} />
        </Link>
      ) : null}
      <Text style={styles.title}>{item.title}</Text>
      {showVariant ? <Text style={styles.variant}>{variant}</Text> : null}
      <Text style={{ ...styles.status, color: STATUS_COLOURS[item.kind] }}>{statusOf(item, messages)}</Text>
      {item.kind === "price_dropped" && item.oldPriceMinor !== null && item.newPriceMinor !== null ? (
        <Text style={styles.price}>
          {messages.rich("price.dropped", {
            price: <strong>{price(item.newPriceMinor)}</strong>,
            oldPrice: <s>{price(item.oldPriceMinor)}</s>,
          })}
        </Text>
      ) : item.newPriceMinor !== null ? (
        <Text style={styles.price}>{messages.t("price.current", { price: price(item.newPriceMinor) })}</Text>
      ) : null}
      <Button href={item.productUrl} style={styles.button}>
        {messages.t("button.viewProduct")}
      </Button>
    </Section>
  );
}

function statusOf(item: AlertEmailItem, messages: Messages): string {
  if (item.kind !== "low_stock") return messages.t(`status.${item.kind}`);
  return item.quantity !== null && item.quantity > 0
    ? messages.plural("status.low_stock", item.quantity)
    : messages.t("status.low_stock_few");
}

// Contrast on white, WCAG AA for text of this size (4.5:1) and beyond: green 7.1:1, red 6.5:1, brown 7.3:1,
// blue 8.7:1.
const STATUS_COLOURS: Record<AlertKind, string> = {
  back_in_stock: "#166534",
  price_dropped: "#b91c1c",
  low_stock: "#9a3412",
  reminder: "#1e40af",
};

// A system font stack: no remote font is fetched when the email opens.
const FONT = "-apple-system, BlinkMacSystemFont, Segoe UI, Roboto, Helvetica, Arial, sans-serif";

const styles = {
  body: { backgroundColor: "#f4f4f5", margin: 0, padding: "24px 0", fontFamily: FONT },
  container: { maxWidth: "600px", backgroundColor: "#ffffff", borderRadius: "8px" },
  header: { padding: "24px 32px 0" },
  brand: { color: "#18181b", fontSize: "20px", fontWeight: 700, textDecoration: "none" },
  content: { padding: "0 32px" },
  heading: { color: "#18181b", fontSize: "24px", lineHeight: "32px", fontWeight: 700, margin: "24px 0 8px" },
  paragraph: { color: "#27272a", fontSize: "16px", lineHeight: "24px", margin: "8px 0" },
  item: { borderTop: "1px solid #e4e4e7", padding: "24px 0", marginTop: "16px" },
  image: { maxWidth: "100%", height: "auto", borderRadius: "4px", marginBottom: "12px" },
  title: { color: "#18181b", fontSize: "18px", lineHeight: "26px", fontWeight: 600, margin: "0" },
  variant: { color: "#52525b", fontSize: "14px", lineHeight: "20px", margin: "2px 0 0" },
  status: { fontSize: "14px", lineHeight: "20px", fontWeight: 600, margin: "8px 0 0" },
  price: { color: "#27272a", fontSize: "16px", lineHeight: "24px", margin: "4px 0 16px" },
  // White on near-black: 17.7:1.
  button: {
    backgroundColor: "#18181b",
    color: "#ffffff",
    fontSize: "16px",
    fontWeight: 600,
    borderRadius: "6px",
    padding: "12px 24px",
  },
  signOff: { color: "#27272a", fontSize: "16px", lineHeight: "24px", margin: "24px 0 32px" },
  rule: { borderTop: "1px solid #e4e4e7", margin: 0 },
  footer: { padding: "16px 32px 24px" },
  // Grey on white, 7.7:1: small print that stays readable.
  footerText: { color: "#52525b", fontSize: "13px", lineHeight: "20px", margin: "4px 0" },
  footerLink: { color: "#1d4ed8", textDecoration: "underline" },
} satisfies Record<string, CSSProperties>;
