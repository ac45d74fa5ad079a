/**
 * The admin's Alerts page without a browser (issue 29, item 5): its loader and action called with the requests
 * the embedded admin sends (a session token of the shop), against the real database and Redis, the platform's
 * stand-in behind the fake Admin API, and a real SMTP server (smtp-server) on loopback. Settings are saved
 * through the settings document's schema with the SMTP password sealed and never sent back; the log, the
 * suppression list and the counts are the shop's own; the test email reaches the server, or the page shows
 * what the server answered.
 */
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Session } from "@shopify/shopify-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoShopData, type StandInShop } from "../../stand-in/demo-data";
import { signSessionToken } from "../../stand-in/session-token";
import { startFakeAdminApi, standInGraphql } from "../../scripts/lib/fake-admin-api";
import { startLoginMailbox } from "../support/login-mailbox";

// The platform at the network boundary, and loopback allowed as a mail server's address (as in development),
// set before app modules read the environment.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
process.env.WEBHOOK_ALLOWED_NETWORKS = "127.0.0.0/8";

const { getEnv } = await import("~/env.server");
const { database } = await import("~/data/database.server");
const { claimDueMessages, finishMessage, insertAlerts, insertMessages, insertSuppression, markClicked, retryMessage } =
  await import("~/data/alert-rows.server");
const { replaceProductReading } = await import("~/data/catalogue-rows.server");
const { fillProductSnapshot } = await import("~/data/item-rows.server");
const { findShopById } = await import("~/data/shop-rows.server");
const { open } = await import("~/lib/encryption.server");
const { newId } = await import("~/lib/ids");
const { platformSessionStorage } = await import("~/services/shops/platform-sessions.server");
const { toggleItem } = await import("~/services/wishlists/wishlists.server");
const { closeSmtpTransports } = await import("~/services/alerts/smtp.server");
const { LOG_PAGE_SIZE, TEST_EMAILS_PER_MINUTE } = await import("~/services/alerts/admin.server");
const alertsRoute = await import("~/routes/app.alerts");
const { createShop } = await import("../factories");

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const DAY = 24 * 60 * 60 * 1000;

/** Shops installed on the platform: their offline sessions stored, their stand-in data answered by token. */
const standIns = new Map<string, StandInShop>();
async function installedShop() {
  const shop = await createShop();
  const accessToken = `shpat_${shop.id}`;
  const session = new Session({ id: `offline_${shop.domain}`, shop: shop.domain, state: "", isOnline: false });
  session.scope = getEnv().SCOPES;
  session.accessToken = accessToken;
  await platformSessionStorage.storeSession(session);
  standIns.set(accessToken, demoShopData({ domain: shop.domain, accessToken }));
  return shop;
}
type Shop = Awaited<ReturnType<typeof installedShop>>;
/** The shop's contact email on the platform: the one address test emails may go to. */
const contactOf = (shop: { domain: string }) => `owner@${shop.domain}`;

platform.answer((call) => standInGraphql(standIns.get(call.accessToken ?? "")!)(call));

async function headers(shop: Shop, contentType?: string) {
  const token = await signSessionToken({
    shopDomain: shop.domain,
    apiKey: getEnv().SHOPIFY_API_KEY,
    apiSecret: getEnv().SHOPIFY_API_SECRET,
  });
  const result = new Headers({ authorization: `Bearer ${token}`, "user-agent": BROWSER });
  if (contentType) result.set("content-type", contentType);
  return result;
}

/** The page's data, as the admin loads it (`query`: the address's parameters). */
async function load(shop: Shop, query: Record<string, string> = {}) {
  const url = `${getEnv().SHOPIFY_APP_URL}/app/alerts?${new URLSearchParams(query)}`;
  const request = new Request(url, { headers: await headers(shop) });
  return alertsRoute.loader({ request, params: {}, context: {} } as LoaderFunctionArgs);
}

type Answer = Awaited<ReturnType<typeof alertsRoute.action>>;
async function act(shop: Shop, body: BodyInit, contentType: string): Promise<Answer> {
  const request = new Request(`${getEnv().SHOPIFY_APP_URL}/app/alerts`, {
    method: "POST",
    headers: await headers(shop, contentType),
    body,
  });
  return alertsRoute.action({ request, params: {}, context: {} } as ActionFunctionArgs);
}
const save = (shop: Shop, body: object) => act(shop, JSON.stringify({ intent: "save", ...body }), "application/json");
const submit = (shop: Shop, fields: Record<string, string>) =>
  act(shop, new URLSearchParams(fields), "application/x-www-form-urlencoded");

/** Narrows an answer to the successful one of an intent, failing the test with the answer otherwise. */
function answered<Intent extends string>(answer: Answer, intent: Intent) {
  expect(answer).toMatchObject({ ok: true, intent });
  return answer as Extract<Answer, { ok: true; intent: Intent }>;
}
function refused(answer: Answer) {
  expect(answer.ok).toBe(false);
  return answer as Extract<Answer, { ok: false }>;
}

const settingsOf = async (shopId: string) => {
  const row = (await findShopById(database(), shopId))!;
  return { alertSettings: row.alertSettings, smtpPasswordSealed: row.smtpPasswordSealed };
};

// ---- A mailbox: a real SMTP server on loopback ---------------------------------------------------------

const smtp = await startLoginMailbox({ username: "mailer", password: "s3cret pass" });
const mailbox = smtp.received;
const smtpPort = smtp.port;

afterAll(async () => {
  closeSmtpTransports();
  await smtp.close();
  await platform.close();
});

/** Settings that send through the mailbox above. */
const mailboxSettings = {
  email: {
    enabled: true,
    fromName: "Harbor & Co",
    fromAddress: "wishlist@harbor.example",
    replyTo: "help@harbor.example",
    smtp: { host: "127.0.0.1", port: smtpPort, security: "none", username: "mailer" },
  },
};

// ---- Alerts written with the data layer -----------------------------------------------------------------

/**
 * An email of the shop to the customer, ending in `state` (claimed first, as the sender does, so it leaves
 * the customer's open message behind); "pending" stays open.
 */
async function seedMessage(
  shopId: string,
  customerId: string,
  { state, at, error }: { state: "pending" | "sending" | "sent" | "skipped" | "failed"; at: Date; error?: string },
) {
  const id = newId("alertMessage");
  await insertMessages(database(), [{ id, shopId, customerId, dueAt: at, createdAt: at }]);
  if (state === "pending") {
    if (error) await retryMessage(database(), shopId, id, { dueAt: new Date(at.getTime() + 60_000), error });
    return id;
  }
  const claimed = await claimDueMessages(database(), shopId, { now: at, limit: 10, leaseMs: 60_000 });
  expect(claimed.map((message) => message.id)).toEqual([id]);
  if (state !== "sending") await finishMessage(database(), shopId, id, { state, at, error });
  return id;
}

async function seedAlert(
  shopId: string,
  {
    customerId,
    productId,
    kind = "back_in_stock",
    at,
    messageId = null,
    flowState = null,
    webhookEvent = false,
  }: {
    customerId: string;
    productId: string;
    kind?: string;
    at: Date;
    messageId?: string | null;
    flowState?: string | null;
    webhookEvent?: boolean;
  },
) {
  const [alert] = await insertAlerts(database(), [
    {
      id: newId("alert"),
      shopId,
      customerId,
      listId: newId("list"),
      itemId: newId("item"),
      productId,
      variantId: "",
      kind,
      oldPriceMinor: kind === "price_dropped" ? 5_000 : null,
      newPriceMinor: 4_000,
      quantity: kind === "low_stock" ? 2 : null,
      currency: "USD",
      changeKey: newId("event"),
      messageId,
      flowState,
      webhookEvent,
      createdAt: at,
    },
  ]);
  return alert!;
}

// ---- The tests ----------------------------------------------------------------------------------------

let shop: Shop;
let other: Shop;
beforeAll(async () => {
  shop = await installedShop();
  other = await installedShop();
});

describe("the settings", () => {
  it("shows the defaults, saves the settings and reads them back, the password sealed and never sent back", async () => {
    // GIVEN a shop that never saved its alert settings
    const before = await load(shop);
    expect(before.settings).toMatchObject({
      backInStock: { enabled: true },
      priceDrop: { enabled: true, minPercent: 10 },
      lowStock: { enabled: true, threshold: 5 },
      cooldownDays: 7,
      email: { enabled: false, audience: "subscribed", ratePerMinute: 60 },
    });
    expect(before.passwordSet).toBe(false);
    // The test's recipient offered: the shop's contact email, from the Admin API
    expect(before.contactEmail).toBe(`owner@${shop.domain}`);

    // WHEN the merchant changes a threshold, the audience and the mail server, with a password
    const saved = answered(
      await save(shop, {
        priceDrop: { enabled: true, minPercent: 25 },
        lowStock: { enabled: false, threshold: 3 },
        cooldownDays: 14,
        email: { ...mailboxSettings.email, audience: "all", ratePerMinute: 120 },
        smtpPassword: "s3cret pass",
      }),
      "save",
    );

    // THEN the page's answer and a fresh load say what was saved, and that a password is set
    expect(saved.passwordSet).toBe(true);
    const after = await load(shop);
    expect(after.settings).toEqual(saved.settings);
    expect(after.settings).toMatchObject({
      priceDrop: { minPercent: 25 },
      lowStock: { enabled: false, threshold: 3 },
      cooldownDays: 14,
      email: { enabled: true, audience: "all", ratePerMinute: 120, smtp: { host: "127.0.0.1", port: smtpPort } },
    });
    expect(after.passwordSet).toBe(true);
    // The password is nowhere in what the page receives
    expect(JSON.stringify(after)).not.toContain("s3cret");
    expect(JSON.stringify(saved)).not.toContain("s3cret");

    // and it is stored sealed: not the password, and it opens to it for this shop only
    const stored = await settingsOf(shop.id);
    expect(stored.smtpPasswordSealed).toBeTruthy();
    expect(stored.smtpPasswordSealed).not.toContain("s3cret");
    expect(stored.alertSettings).not.toContain("s3cret");
    expect(open("smtp-password", stored.smtpPasswordSealed!, `smtp:${shop.id}`)).toBe("s3cret pass");
    expect(() => open("smtp-password", stored.smtpPasswordSealed!, `smtp:${other.id}`)).toThrow();
  });

  it("keeps the stored password when the field is left empty, and replaces it when a new one is typed", async () => {
    const sealed = (await settingsOf(shop.id)).smtpPasswordSealed;
    expect(sealed).toBeTruthy();
    const current = (await load(shop)).settings;

    // Left empty (or not sent): the settings change, the password stays as it was
    answered(await save(shop, { ...current, cooldownDays: 10, smtpPassword: "" }), "save");
    answered(await save(shop, { ...current, cooldownDays: 12 }), "save");
    expect(await settingsOf(shop.id)).toMatchObject({ smtpPasswordSealed: sealed });
    expect((await load(shop)).settings.cooldownDays).toBe(12);

    // A new one replaces it
    answered(await save(shop, { ...current, smtpPassword: "another one" }), "save");
    const replaced = (await settingsOf(shop.id)).smtpPasswordSealed!;
    expect(open("smtp-password", replaced, `smtp:${shop.id}`)).toBe("another one");
    answered(await save(shop, { ...current, smtpPassword: "s3cret pass" }), "save");
  });

  it("answers bad input with a message on each field at fault, and writes nothing", async () => {
    const before = await settingsOf(shop.id);
    const answer = refused(
      await save(other, {
        priceDrop: { enabled: true, minPercent: 0 },
        lowStock: { enabled: true, threshold: "five" },
        cooldownDays: 365,
        email: {
          enabled: true,
          fromAddress: "not an address",
          smtp: { host: "smtp.example.com\r\nRSET", port: 70_000, security: "ssl3" },
        },
        smtpPassword: "one\ntwo",
      }),
    );
    expect(Object.keys(answer.fieldErrors).sort()).toEqual([
      "cooldownDays",
      "email.fromAddress",
      "email.smtp.host",
      "email.smtp.port",
      "email.smtp.security",
      "lowStock.threshold",
      "priceDrop.minPercent",
      "smtpPassword",
    ]);
    expect(answer.fieldErrors["email.fromAddress"]).toMatch(/email address/);
    expect(answer.fieldErrors.smtpPassword).toBe("must be one line");

    // The email channel switched on without a server or a from address would send nothing: refused
    const incomplete = refused(await save(other, { email: { enabled: true } }));
    expect(incomplete.fieldErrors).toEqual({
      "email.smtp.host": "is required to send alert emails",
      "email.fromAddress": "is required to send alert emails",
    });

    // Nothing was written, to either shop
    expect(await settingsOf(shop.id)).toEqual(before);
    expect(await settingsOf(other.id)).toEqual({ alertSettings: "{}", smtpPasswordSealed: null });
  });
});

describe("the test email", () => {
  it("is received by the shop's mail server, with the subject of a sample alert, from the shop's brand", async () => {
    // GIVEN the shop's catalogue has been read, and one of its products is titled from the catalogue
    const coat = standIns.get(`shpat_${shop.id}`)!.products[1]!;
    await toggleItem({
      shopId: shop.id,
      owner: { kind: "customer", customerId: "7001" },
      item: { productId: coat.id, handle: coat.handle },
    });
    await fillProductSnapshot(
      database(),
      shop.id,
      { productId: coat.id, title: coat.title, handle: coat.handle },
      new Date(),
    );
    await replaceProductReading(database(), shop.id, coat.id, [
      {
        shopId: shop.id,
        productId: coat.id,
        variantId: "880001",
        inventoryItemId: null,
        title: "Default Title",
        priceMinor: 18_900,
        compareAtMinor: null,
        currency: "EUR",
        available: true,
        inventoryQuantity: 4,
        imageUrl: null,
        readAt: new Date(),
      },
    ]);
    const sent = mailbox.length;

    // WHEN the merchant sends a test email to themselves
    const answer = answered(await submit(shop, { intent: "test", to: contactOf(shop), language: "en" }), "test");

    // THEN the page says the server accepted it, with the server's own words
    expect(answer.result).toEqual({
      sent: true,
      to: contactOf(shop),
      answer: expect.stringMatching(/^250 /),
    });
    // and the server holds the message: to the address, with the alert's subject and the brand as the sender
    await expect.poll(() => mailbox.length, { timeout: 20_000 }).toBe(sent + 1);
    const { rcptTo, mail } = mailbox.at(-1)!;
    expect(rcptTo).toEqual([contactOf(shop)]);
    expect(mail.subject).toBe(`Back in stock: ${coat.title}`);
    expect(mail.from?.value).toMatchObject([{ name: "Harbor & Co", address: "wishlist@harbor.example" }]);
    expect(mail.replyTo?.value[0]?.address).toBe("help@harbor.example");
    expect(mail.text).toContain(coat.title);
    expect(mail.html).toContain("€189.00");
  });

  it("shows the server's error when it refuses, and the reason when the host may not be reached", async () => {
    const current = (await load(shop)).settings;
    answered(await save(shop, { ...current, smtpPassword: "a wrong one" }), "save");
    const sent = mailbox.length;
    const wrong = answered(await submit(shop, { intent: "test", to: contactOf(shop) }), "test");
    expect(wrong.result).toEqual({ sent: false, detail: expect.stringMatching(/^535 .*Invalid username or password/) });

    // A private address outside the allowed networks is never connected to
    answered(
      await save(shop, {
        ...current,
        email: { ...current.email, smtp: { ...current.email.smtp, host: "10.20.30.40" } },
      }),
      "save",
    );
    const privateHost = answered(await submit(shop, { intent: "test", to: contactOf(shop) }), "test");
    expect(privateHost.result).toEqual({ sent: false, detail: expect.stringMatching(/not public/) });
    expect(mailbox.length).toBe(sent);

    // An address that is not one is refused beside its field, before anything is sent
    const badAddress = refused(await submit(shop, { intent: "test", to: "merchant at harbor" }));
    expect(Object.keys(badAddress.fieldErrors)).toEqual(["to"]);

    answered(await save(shop, { ...current, smtpPassword: "s3cret pass" }), "save");
  });

  it(`sends at most ${TEST_EMAILS_PER_MINUTE} a minute per shop`, async () => {
    const limited = await installedShop();
    answered(await save(limited, { ...mailboxSettings, smtpPassword: "s3cret pass" }), "save");
    const sent = mailbox.length;
    for (let count = 0; count < TEST_EMAILS_PER_MINUTE; count++) {
      const answer = answered(await submit(limited, { intent: "test", to: contactOf(limited) }), "test");
      expect(answer.result.sent).toBe(true);
    }
    const over = answered(await submit(limited, { intent: "test", to: contactOf(limited) }), "test");
    expect(over.result).toEqual({ sent: false, detail: expect.stringMatching(/^At most 5 test emails a minute/) });
    await expect.poll(() => mailbox.length, { timeout: 20_000 }).toBe(sent + TEST_EMAILS_PER_MINUTE);
    // Another shop's allowance is its own
    const elsewhere = answered(await submit(shop, { intent: "test", to: contactOf(shop) }), "test");
    expect(elsewhere.result.sent).toBe(true);
  });
});

describe("the preview", () => {
  it.each(["en", "fr", "de", "es"])(
    "renders each template in %s, with the subject and the shop's brand",
    async (language) => {
      const subjects = new Set<string>();
      for (const template of ["back_in_stock", "price_dropped", "low_stock", "digest"]) {
        const { preview } = answered(await submit(shop, { intent: "preview", template, language }), "preview");
        expect(preview).toMatchObject({ template, language });
        expect(preview.html).toContain(`lang="${language}"`);
        expect(preview.html).toContain("Harbor &amp; Co");
        expect(preview.html).not.toMatch(/<script/i);
        subjects.add(preview.subject);
      }
      expect(subjects.size).toBe(4);
    },
  );

  it("refuses a template it does not have", async () => {
    const answer = refused(await submit(shop, { intent: "preview", template: "welcome", language: "en" }));
    expect(Object.keys(answer.fieldErrors)).toEqual(["template"]);
  });
});

describe("the log", () => {
  const now = Date.now();
  let made: string[];

  beforeAll(async () => {
    // 30 alerts of the shop, a minute apart, the newest last; the customers are the stand-in's 7001-7005
    made = [];
    for (let index = 0; index < 30; index++) {
      const at = new Date(now - (30 - index) * 60_000);
      const customerId = index === 29 ? "7001" : String(7001 + (index % 5));
      const messageId =
        index === 29
          ? await seedMessage(shop.id, "7001", { state: "skipped", at, error: "no email marketing consent" })
          : null;
      const alert = await seedAlert(shop.id, {
        customerId,
        productId: index === 29 ? standIns.get(`shpat_${shop.id}`)!.products[1]!.id : String(9_000_000 + index),
        kind: ["back_in_stock", "price_dropped", "low_stock"][index % 3],
        at,
        messageId,
      });
      made.push(alert.id);
    }
    // The other shop: the same customers, newer alerts
    for (let index = 0; index < 3; index++) {
      await seedAlert(other.id, { customerId: "7001", productId: "9000000", at: new Date(now) });
    }
  });

  it("lists the shop's alerts newest first, a page at a time, each named as the shop knows it", async () => {
    const first = await load(shop);
    expect(first.log.entries).toHaveLength(LOG_PAGE_SIZE);
    expect(first.log.entries.map((entry) => entry.id)).toEqual([...made].reverse().slice(0, LOG_PAGE_SIZE));
    const newest = first.log.entries[0]!;
    expect(newest).toMatchObject({
      customerId: "7001",
      customerName: "Ada Lovelace",
      productTitle: "Harbor Wool Coat",
      channels: ["email"],
      emailState: "skipped",
      emailError: "no email marketing consent",
      clickedAt: null,
    });
    // A product no item names from the catalogue: no title (the page shows its id)
    expect(first.log.entries[1]).toMatchObject({ productTitle: null, channels: [], emailState: null });
    expect(first.log.previousCursor).toBeNull();

    const second = await load(shop, { cursor: first.log.nextCursor! });
    expect(second.log.entries.map((entry) => entry.id)).toEqual([...made].reverse().slice(LOG_PAGE_SIZE));
    expect(second.log.nextCursor).toBeNull();
    const back = await load(shop, { cursor: second.log.previousCursor! });
    expect(back.log.entries.map((entry) => entry.id)).toEqual(first.log.entries.map((entry) => entry.id));
  });

  it("filters by kind and by the email's state", async () => {
    const priceDrops = await load(shop, { kind: "price_dropped" });
    expect(priceDrops.log.entries).toHaveLength(10);
    expect(new Set(priceDrops.log.entries.map((entry) => entry.kind))).toEqual(new Set(["price_dropped"]));
    const skipped = await load(shop, { state: "skipped" });
    expect(skipped.log.entries.map((entry) => entry.id)).toEqual([made[29]]);
    const noEmail = await load(shop, { state: "none", kind: "back_in_stock" });
    expect(noEmail.log.entries).toHaveLength(10);
  });

  it("never shows another shop's alert, nor takes its cursor", async () => {
    const mine = await load(shop);
    const theirs = await load(other);
    expect(theirs.log.entries).toHaveLength(3);
    expect(theirs.log.entries.some((entry) => made.includes(entry.id))).toBe(false);
    expect(mine.log.entries.some((entry) => theirs.log.entries.some((their) => their.id === entry.id))).toBe(false);
    const borrowed = await load(other, { cursor: mine.log.nextCursor! });
    expect(borrowed.cursorError).toBe(true);
    expect(borrowed.log.entries).toEqual([]);
  });
});

describe("the log's channels", () => {
  it("names the email, webhook event and Flow trigger each alert went out on", async () => {
    const channelled = await installedShop();
    const at = new Date();
    const messageId = await seedMessage(channelled.id, "7001", { state: "pending", at });
    const both = await seedAlert(channelled.id, {
      customerId: "7001",
      productId: "1",
      at,
      messageId,
      webhookEvent: true,
    });
    const webhookOnly = await seedAlert(channelled.id, { customerId: "7002", productId: "1", at, webhookEvent: true });
    const neither = await seedAlert(channelled.id, { customerId: "7003", productId: "1", at });
    const viaFlow = await seedAlert(channelled.id, { customerId: "7004", productId: "1", at, flowState: "sent" });

    const channels = new Map((await load(channelled)).log.entries.map((entry) => [entry.id, entry]));
    expect(channels.get(both.id)).toMatchObject({ channels: ["email", "webhook"], emailState: "pending" });
    expect(channels.get(webhookOnly.id)).toMatchObject({ channels: ["webhook"], emailState: null });
    expect(channels.get(neither.id)).toMatchObject({ channels: [], emailState: null });
    expect(channels.get(viaFlow.id)).toMatchObject({ channels: ["flow"], emailState: null });
  });
});

describe("the suppression list", () => {
  it("shows the shop's suppressed customers, and re-subscribes one of them only", async () => {
    const at = new Date();
    await insertSuppression(database(), shop.id, { customerId: "7002", reason: "unsubscribed", at });
    await insertSuppression(database(), shop.id, {
      customerId: "7003",
      reason: "bounced",
      detail: "550 5.1.1 mailbox unavailable",
      at: new Date(at.getTime() + 1_000),
    });
    await insertSuppression(database(), other.id, { customerId: "7004", reason: "unsubscribed", at });

    const page = await load(shop);
    expect(page.suppressions.entries).toEqual([
      {
        customerId: "7003",
        customerName: "Alan Turing",
        reason: "bounced",
        detail: "550 5.1.1 mailbox unavailable",
        since: new Date(at.getTime() + 1_000).toISOString(),
      },
      {
        customerId: "7002",
        customerName: "Grace Hopper",
        reason: "unsubscribed",
        detail: null,
        since: at.toISOString(),
      },
    ]);

    // Another shop's suppressed customer: nothing happens, their entry stays
    const elsewhere = refused(await submit(shop, { intent: "resubscribe", customerId: "7004" }));
    expect(elsewhere.formError).toMatch(/not on the suppression list/);
    expect((await load(other)).suppressions.entries.map((entry) => entry.customerId)).toEqual(["7004"]);

    // The shop's own: taken off the list
    answered(await submit(shop, { intent: "resubscribe", customerId: "7002" }), "resubscribe");
    expect((await load(shop)).suppressions.entries.map((entry) => entry.customerId)).toEqual(["7003"]);
    refused(await submit(shop, { intent: "resubscribe", customerId: "not-an-id" }));
  });
});

describe("the counts", () => {
  it("counts alerts by kind, emails sent and clicks over 7, 30 and 90 days, for the shop only", async () => {
    const counted = await installedShop();
    const now = Date.now();
    const ago = (days: number) => new Date(now - days * DAY);
    // Alerts: 2 days ago (2 back in stock, one emailed and clicked; 1 price drop emailed, not clicked),
    // 20 days ago (1 low stock emailed and clicked), 60 days ago (1 price drop, no email), 120 days ago (1, out).
    const recent = await seedMessage(counted.id, "7001", { state: "sent", at: ago(2) });
    const recentToo = await seedMessage(counted.id, "7002", { state: "sent", at: ago(2) });
    const older = await seedMessage(counted.id, "7003", { state: "sent", at: ago(20) });
    await seedMessage(counted.id, "7004", { state: "failed", at: ago(3), error: "550 no such user" });
    await seedMessage(counted.id, "7005", { state: "sent", at: ago(100) });
    const clicked = await seedAlert(counted.id, { customerId: "7001", productId: "1", at: ago(2), messageId: recent });
    await seedAlert(counted.id, { customerId: "7001", productId: "2", at: ago(2) });
    await seedAlert(counted.id, {
      customerId: "7002",
      productId: "3",
      kind: "price_dropped",
      at: ago(2),
      messageId: recentToo,
    });
    const lowStock = await seedAlert(counted.id, {
      customerId: "7003",
      productId: "4",
      kind: "low_stock",
      at: ago(20),
      messageId: older,
    });
    await seedAlert(counted.id, { customerId: "7004", productId: "5", kind: "price_dropped", at: ago(60) });
    await seedAlert(counted.id, { customerId: "7005", productId: "6", at: ago(120) });
    await markClicked(database(), counted.id, clicked.id, ago(1));
    await markClicked(database(), counted.id, lowStock.id, ago(19));
    // Another shop's rows of the same days count for it alone
    await seedAlert(other.id, { customerId: "7001", productId: "1", at: ago(2) });

    const { counts } = await load(counted);
    expect(counts).toEqual({
      days: [7, 30, 90],
      made: { back_in_stock: [2, 2, 2], price_dropped: [1, 1, 2], low_stock: [0, 1, 1], reminder: [0, 0, 0] },
      sent: [2, 3, 3],
      clicks: [1, 2, 2],
      // Clicked alerts per emailed alert: 1 of 2, then 2 of 3
      clickRate: [0.5, 2 / 3, 2 / 3],
    });
  });
});

describe("the reminders section (issue 30)", () => {
  it("is off by default after 14 days; saves the switch and the days, and refuses days outside 1 to 365", async () => {
    const reminding = await installedShop();
    const before = await load(reminding);
    expect(before.settings.reminders).toEqual({ enabled: false, afterDays: 14 });

    const saved = answered(
      await save(reminding, { ...before.settings, reminders: { enabled: true, afterDays: 30 } }),
      "save",
    );
    expect(saved.settings.reminders).toEqual({ enabled: true, afterDays: 30 });
    expect((await load(reminding)).settings.reminders).toEqual({ enabled: true, afterDays: 30 });
    // In the alerts' settings document, where the worker's runs read it.
    expect(JSON.parse((await settingsOf(reminding.id)).alertSettings).reminders).toEqual({
      enabled: true,
      afterDays: 30,
    });

    for (const afterDays of [0, 366, 2.5, "ten"]) {
      const answer = refused(await save(reminding, { ...before.settings, reminders: { enabled: true, afterDays } }));
      expect(Object.keys(answer.fieldErrors), String(afterDays)).toEqual(["reminders.afterDays"]);
    }
    expect((await load(reminding)).settings.reminders).toEqual({ enabled: true, afterDays: 30 });
    answered(await save(reminding, { ...before.settings, reminders: { enabled: false, afterDays: 30 } }), "save");
    expect((await load(reminding)).settings.reminders).toEqual({ enabled: false, afterDays: 30 });
  });

  it.each([
    ["en", "Still thinking about Linen shirt?", "Still on your wishlist"],
    ["fr", "Toujours intéressé(e) par Chemise en lin\u00a0?", "Toujours dans votre liste d’envies"],
    ["de", "Noch interessiert an Leinenhemd?", "Noch auf Ihrer Wunschliste"],
    ["es", "¿Sigue pensando en Camisa de lino?", "Sigue en su lista de deseos"],
  ])("previews the reminder email in %s", async (language, subject, heading) => {
    // A shop whose catalogue was never read: the sample's product is a neutral one in the email's language.
    const unread = await installedShop();
    const { preview } = answered(
      await submit(unread, { intent: "preview", template: "reminder", language }),
      "preview",
    );
    expect(preview).toMatchObject({ template: "reminder", language, subject });
    expect(preview.html).toContain(`lang="${language}"`);
    expect(preview.html).toContain(heading);
    expect(preview.html).not.toMatch(/<script/i);
  });

  it("lists reminders in the log, filtered by their kind, and counts them", async () => {
    const counted = await installedShop();
    const at = new Date(Date.now() - 2 * DAY);
    const messageId = await seedMessage(counted.id, "7001", { state: "sent", at });
    const reminder = await seedAlert(counted.id, {
      customerId: "7001",
      productId: "1",
      kind: "reminder",
      at,
      messageId,
    });
    await seedAlert(counted.id, { customerId: "7001", productId: "2", kind: "back_in_stock", at });
    await markClicked(database(), counted.id, reminder.id, new Date());

    const page = await load(counted, { kind: "reminder" });
    expect(page.filters.kind).toBe("reminder");
    expect(page.log.entries.map((entry) => [entry.id, entry.kind, entry.channels, entry.emailState])).toEqual([
      [reminder.id, "reminder", ["email"], "sent"],
    ]);
    expect(page.counts).toMatchObject({
      made: { back_in_stock: [1, 1, 1], price_dropped: [0, 0, 0], low_stock: [0, 0, 0], reminder: [1, 1, 1] },
      clicks: [1, 1, 1],
    });
  });
});
