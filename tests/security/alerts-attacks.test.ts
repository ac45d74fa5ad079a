import { createHmac, randomUUID } from "node:crypto";
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { JSDOM } from "jsdom";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MailboxMessage } from "../../stand-in/mailbox";
import { signSessionToken } from "../../stand-in/session-token";
import { until } from "../support/poll";

/**
 * Attacks on the wishlist alerts (issue 29, docs/decisions/050-wishlist-alerts.md), by the OWASP API Security
 * Top 10, against the real app: the web process's HTTP application (Hono and the built Remix admin) on a
 * loopback port, the platform stand-in sending its signed webhooks and answering the Admin API, real SMTP
 * servers (the stand-in's mailbox and smtp-server instances of this file) and the real worker process.
 *
 * Each test says what it proves. Those named "FINDING" fail on the code as reviewed (e059210): each is a hole,
 * and passes once it is closed. The others are defences that held, kept so they stay held.
 *
 * Loopback is not a public address, so only 127.0.0.3 (where this file's mail servers listen) is let through
 * the SMTP host rule: every other loopback and private address stays refused, as in production.
 */
const MAIL_HOST = "127.0.0.3";
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: `${MAIL_HOST}/32`,
  OUTBOX_RELAY_INTERVAL_MS: "50",
  ALERT_GATHER_MS: "1000",
  ALERT_DIGEST_MS: "1000",
  ALERT_SEND_LEASE_MS: "60000",
  ALERT_RETRY_BASE_MS: "500",
});

const { getEnv } = await import("~/env.server");
const { startAlertStack } = await import("../support/alert-stack");
const { app, appUrl, platform, mailbox, alertShop } = await startAlertStack({ mailHost: MAIL_HOST });

const { database } = await import("~/data/database.server");
const { insertAlerts, insertMessages } = await import("~/data/alert-rows.server");
const { replaceProductReading } = await import("~/data/catalogue-rows.server");
const { findShopById } = await import("~/data/shop-rows.server");
const { deriveKey } = await import("~/lib/derived-keys.server");
const { newId } = await import("~/lib/ids");
const { clickUrl, unsubscribeUrl } = await import("~/services/alerts/links.server");
const { closeSmtpTransports } = await import("~/services/alerts/smtp.server");
const { platformWebhook } = await import("../support/platform-webhooks");
const { signedProxyPath } = await import("../support/openapi-client");
const { startProcess } = await import("../support/processes");

afterAll(() => closeSmtpTransports());

const BROWSER = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
const TOTE = { productId: "8100000008", variantId: "9100000008", handle: "pebble-canvas-tote" };
const SCARF = { productId: "8100000009", variantId: "9100000009", handle: "ember-wool-scarf" };
const ADA = "7001";
const GRACE = "7002";

type AlertShop = Awaited<ReturnType<typeof alertShop>>;

/** The rows of the shop's suppression list. */
const suppressed = (shopId: string) =>
  database()
    .selectFrom("AlertSuppression")
    .select(["customerId", "reason", "detail"])
    .where("shopId", "=", shopId)
    .orderBy("customerId")
    .execute();

// ---- Links --------------------------------------------------------------------------------------------

const tokenOf = (url: string) => url.split("/").pop()!;
const encode = (claims: object) => Buffer.from(JSON.stringify(claims)).toString("base64url");
const decode = (body: string) => JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Record<string, unknown>;
/** A token as links.server.ts writes them, over these claims, with any key. */
function signWith(key: Buffer | string, kind: string, claims: object) {
  const body = encode(claims);
  return `${body}.${createHmac("sha256", key).update(`${kind}.${body}`).digest("base64url")}`;
}

const unsubscribe = (token: string, init: RequestInit = {}) =>
  app.request(`${appUrl}/alerts/unsubscribe/${token}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "List-Unsubscribe=One-Click",
    ...init,
  });

async function expectInvalidLink(response: Response, what: string) {
  expect(response.status, what).toBe(400);
  if (response.headers.get("content-type")?.includes("json")) {
    expect(((await response.json()) as { type: string }).type, what).toMatch(/\/problems\/alert-link-invalid$/);
  } else {
    expect(await response.text(), what).toContain("<h1>This link is not valid</h1>");
  }
}

describe("the unsubscribe link (GET/POST /alerts/unsubscribe/:token)", () => {
  // HELD: the token is the whole authority of a cookie-less one-click POST; nothing but the app's own token
  // for the purpose verifies.
  it("refuses forged, cut, re-purposed, re-signed, oversized and malformed tokens, and unsubscribes nobody", async () => {
    const s = await alertShop();
    const other = await alertShop();
    const good = tokenOf(unsubscribeUrl({ shopId: s.shop.id, customerId: ADA, locale: "en" }));
    const [body, signature] = good.split(".") as [string, string];
    const claims = decode(body);
    const alertKey = deriveKey("alert-link");
    const click = tokenOf(
      clickUrl({ shopDomain: s.shop.domain, shopId: s.shop.id, messageId: "amsg_x", alertId: "alr_x", handle: "x" }),
    );
    const attempts: Record<string, string> = {
      "another customer's claims under the signature": `${encode({ ...claims, c: GRACE })}.${signature}`,
      "another shop's claims under the signature": `${encode({ ...claims, s: other.shop.id })}.${signature}`,
      "the signature cut by a character": good.slice(0, -1),
      "the signature cut by half": good.slice(0, -21),
      "the body cut by a character": `${body.slice(1)}.${signature}`,
      "no signature": body,
      "an empty body": `.${signature}`,
      "the signature alone": signature,
      "two signatures": `${good}.${signature}`,
      "padding after the signature": `${good}=`,
      "a click link's token (the other purpose)": click,
      "the claims signed as a click link": signWith(alertKey, "click", claims),
      "the claims signed with the signed-URL key": signWith(deriveKey("signed-url"), "unsubscribe", claims),
      "the claims signed with the cursor key": signWith(deriveKey("cursor"), "unsubscribe", claims),
      "the claims signed with the compliance-email key": signWith(deriveKey("compliance-email"), "unsubscribe", claims),
      "the claims signed with SERVICE_SECRET itself": signWith(getEnv().SERVICE_SECRET, "unsubscribe", claims),
      "the claims signed with the app's API secret": signWith(getEnv().SHOPIFY_API_SECRET, "unsubscribe", claims),
      "a customer id that is not one, signed": signWith(alertKey, "unsubscribe", { ...claims, c: "7001 OR 1=1" }),
      "a version this app never wrote, signed": signWith(alertKey, "unsubscribe", { ...claims, v: 2 }),
      "no shop, signed": signWith(alertKey, "unsubscribe", { v: 1, c: ADA }),
      "a body that is not JSON, signed": `${Buffer.from("not json").toString("base64url")}.${createHmac(
        "sha256",
        alertKey,
      )
        .update(`unsubscribe.${Buffer.from("not json").toString("base64url")}`)
        .digest("base64url")}`,
      "a 64 KB token": `${"A".repeat(65_536)}.${signature}`,
      "a 1 MB token": `${"A".repeat(1_048_576)}.${signature}`,
    };
    for (const [what, token] of Object.entries(attempts)) {
      await expectInvalidLink(await unsubscribe(token), `POST, ${what}`);
      await expectInvalidLink(
        await app.request(`${appUrl}/alerts/unsubscribe/${token}`, { headers: { accept: "text/html" } }),
        `GET, ${what}`,
      );
    }
    expect(await suppressed(s.shop.id)).toEqual([]);
    expect(await suppressed(other.shop.id)).toEqual([]);
  });

  // HELD: link scanners follow links; only a POST unsubscribes, and a POST unsubscribes the one customer of
  // the one shop the token names, however often it is sent.
  it("never unsubscribes on GET, HEAD, a method override or another method; a POST names one customer of one shop", async () => {
    const s = await alertShop();
    const other = await alertShop();
    const token = tokenOf(unsubscribeUrl({ shopId: s.shop.id, customerId: ADA, locale: "en" }));
    const url = `${appUrl}/alerts/unsubscribe/${token}`;
    expect((await app.request(url, { headers: { accept: "text/html" } })).status).toBe(200);
    expect((await app.request(url, { method: "HEAD" })).status).toBeLessThan(500);
    expect((await app.request(`${url}?_method=POST`, { headers: { "x-http-method-override": "POST" } })).status).toBe(
      200,
    );
    // Answered by the app, not handed to the admin's router: a 405 problem that says what is allowed.
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const answer = await app.request(url, { method, body: "x" });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get("content-type"), method).toMatch(/^application\/problem\+json/);
      expect(answer.headers.get("allow"), method).toBe("GET, HEAD, POST, OPTIONS");
    }
    const options = await app.request(url, { method: "OPTIONS" });
    expect([options.status, options.headers.get("allow")]).toEqual([204, "GET, HEAD, POST, OPTIONS"]);
    for (const [path, allow] of [
      ["/flow/lifecycle", "POST, OPTIONS"],
      ["/proxy/alerts/click/x", "GET, HEAD, OPTIONS"],
    ]) {
      const answer = await app.request(`${appUrl}${path}`, { method: "DELETE" });
      expect([answer.status, answer.headers.get("allow")], path).toEqual([405, allow]);
    }
    expect(await suppressed(s.shop.id)).toEqual([]);

    for (let attempt = 0; attempt < 3; attempt++) expect((await unsubscribe(token)).status).toBe(200);
    expect(await suppressed(s.shop.id)).toEqual([{ customerId: ADA, reason: "unsubscribed", detail: null }]);
    expect(await suppressed(other.shop.id)).toEqual([]);
  });

  // HELD: the shop's sender name is the merchant's text, shown on a page of the app's own origin: escaped.
  it("escapes markup in the shop's sender name and in the token's language on both pages", async () => {
    const markup = `"><script>alert(1)</script><img src=x onerror=alert(2)>`;
    const s = await alertShop({ email: { fromName: markup } });
    const token = signWith(deriveKey("alert-link"), "unsubscribe", {
      v: 1,
      s: s.shop.id,
      c: ADA,
      l: `"><script>alert(3)</script>`,
    });
    const pages = [
      await app.request(`${appUrl}/alerts/unsubscribe/${token}`, { headers: { accept: "text/html" } }),
      await unsubscribe(token, {
        headers: { accept: "text/html", "content-type": "application/x-www-form-urlencoded" },
      }),
    ];
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      const html = await page.text();
      expect(html).not.toMatch(/<script|<img|<[^>]*onerror/i);
      expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
      expect(html).toContain('<html lang="en">');
    }
  });

  // FINDING (Low, integrity of the page): the escaped sender name is put into the page with String.replace
  // and a replacement *string*, so `$&`, `` $` `` and `$$` in it are read as replacement patterns. Escaping
  // makes it worse: `'` becomes `&#39;` and `&` becomes `&amp;`, so "Fish $' Chips $& Co" is shown as
  // "Fish \0#39; Chips \0amp; Co" (two NUL characters and broken entities). Nothing unescaped gets in (every
  // part is escaped first), but the page does not show the shop's name.
  // Fix: `.replace("\u0000", () => shopName)` on both pages (app/api/alert-links.server.ts).
  it("FINDING: shows a sender name with $-patterns as written", async () => {
    const name = "Fish $' Chips $& Co";
    const s = await alertShop({ email: { fromName: name } });
    const token = tokenOf(unsubscribeUrl({ shopId: s.shop.id, customerId: ADA, locale: "en" }));
    const shown = async (response: Response) =>
      new JSDOM(await response.text()).window.document.querySelector("main p")?.textContent;
    const page = await app.request(`${appUrl}/alerts/unsubscribe/${token}`, { headers: { accept: "text/html" } });
    expect(await shown(page)).toContain(` ${name} `);
    const done = await unsubscribe(token, { headers: { accept: "text/html" } });
    expect(await shown(done)).toContain(` from ${name}.`);
  });

  // FINDING (Informational): the signature's last base64url character carries 2 unused bits, and
  // Buffer.from(..., "base64url") ignores them, so each token has 4 spellings that all verify. No claim
  // changes, so nothing is gained today; it matters the day a token is used as a key (a replay ledger, a
  // cache, a rate-limit key). Fix: compare the signature as text with the canonical encoding of the MAC
  // (or check that re-encoding `given` gives back `signature`) in links.server.ts verify().
  it("FINDING: takes one spelling of a token's signature only", async () => {
    const s = await alertShop();
    const token = tokenOf(unsubscribeUrl({ shopId: s.shop.id, customerId: ADA, locale: "en" }));
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const last = alphabet.indexOf(token.at(-1)!);
    const respelled = `${token.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(respelled).not.toBe(token);
    await expectInvalidLink(await unsubscribe(respelled), "the signature respelled");
  });

  // FINDING (Low, OWASP API4 unrestricted resource consumption): the unsubscribe routes are public, outside
  // /v1, and have no rate limit: each POST with a valid token is a shop read and an INSERT (on SQLite, a turn
  // of the one write lock), each GET a shop read, at whatever pace a recipient (or anyone the email was
  // forwarded to) sends them. /v1 keeps a client address to 300 a minute. Fix: the same per-address limit
  // (app/lib/rate-limit-keys.server.ts) on /alerts/* and /flow/lifecycle, answering 429 `rate-limited`.
  it("FINDING: limits how often one client may call the unsubscribe link", async () => {
    const s = await alertShop();
    const token = tokenOf(unsubscribeUrl({ shopId: s.shop.id, customerId: ADA, locale: "en" }));
    const statuses = new Map<number, number>();
    for (let call = 0; call < 400; call++) {
      const { status } = await unsubscribe(token);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(statuses.get(429) ?? 0).toBeGreaterThan(0);
  });
});

// ---- The product link through the app proxy --------------------------------------------------------------

/** An alert of the shop in an email of its own, written with the data layer. */
async function seedAlert(shopId: string, customerId = ADA) {
  const at = new Date();
  const messageId = newId("alertMessage");
  await insertMessages(database(), [{ id: messageId, shopId, customerId, dueAt: at, createdAt: at }]);
  const [alert] = await insertAlerts(database(), [
    {
      id: newId("alert"),
      shopId,
      customerId,
      listId: newId("list"),
      itemId: newId("item"),
      productId: TOTE.productId,
      variantId: TOTE.variantId,
      kind: "back_in_stock",
      oldPriceMinor: null,
      newPriceMinor: 7_800,
      quantity: 20,
      currency: "USD",
      changeKey: newId("event"),
      messageId,
      flowState: null,
      webhookEvent: false,
      createdAt: at,
    },
  ]);
  return alert!;
}
const clickedAt = async (alertId: string) =>
  (await database().selectFrom("Alert").select("clickedAt").where("id", "=", alertId).executeTakeFirstOrThrow())
    .clickedAt;

describe("the product link (GET /proxy/alerts/click/:token)", () => {
  // HELD: the handle is signed by the app, and the redirect is relative and encodes the handle as one path
  // segment, so no handle leaves the shop's domain or the /products/ path.
  it("never redirects off the shop's domain, whatever the handle", async () => {
    const s = await alertShop();
    const alert = await seedAlert(s.shop.id);
    const handles = [
      "//evil.example",
      "///evil.example",
      "\\\\evil.example",
      "/\\evil.example",
      "\\/evil.example",
      "%2F%2Fevil.example",
      "%5C%5Cevil.example",
      "https://evil.example",
      "javascript:alert(1)",
      "../../../evil.example",
      "..",
      "..%2F..%2Fevil.example",
      "\t//evil.example",
      "x\r\nLocation: https://evil.example",
      "x?next=https://evil.example#frag",
      "@evil.example",
    ];
    for (const handle of handles) {
      const token = tokenOf(
        clickUrl({
          shopDomain: s.shop.domain,
          shopId: s.shop.id,
          messageId: alert.messageId!,
          alertId: alert.id,
          handle,
        }),
      );
      const answer = await app.request(
        `${appUrl}${signedProxyPath(`/proxy/alerts/click/${token}`, { shop: s.shop.domain })}`,
      );
      expect(answer.status, handle).toBe(302);
      const location = answer.headers.get("location")!;
      expect(location, handle).toMatch(/^\/products\/[^/\\]*$/);
      const landed = new URL(location, `https://${s.shop.domain}/apps/service/alerts/click/${token}`);
      expect(landed.origin, handle).toBe(`https://${s.shop.domain}`);
      expect(landed.pathname.startsWith("/products/") || landed.pathname === "/", handle).toBe(true);
    }
  });

  // HELD: a click is counted for the alert of the shop whose proxy the click came through, and only with a
  // fresh, valid proxy signature.
  it("counts no click for another shop's alert, nor through a stale, unsigned or mis-signed proxy call", async () => {
    const a = await alertShop();
    const b = await alertShop();
    const alertOfA = await seedAlert(a.shop.id);
    const clickPath = (shopId: string) =>
      `/proxy/alerts/click/${tokenOf(
        clickUrl({
          shopDomain: a.shop.domain,
          shopId,
          messageId: alertOfA.messageId!,
          alertId: alertOfA.id,
          handle: "x",
        }),
      )}`;
    // B's own signed token naming A's alert and message, through B's proxy: the lookup is B's, so nothing.
    const viaB = await app.request(`${appUrl}${signedProxyPath(clickPath(b.shop.id), { shop: b.shop.domain })}`);
    expect(viaB.status).toBe(302);
    // A's token through B's proxy: refused.
    await expectInvalidLink(
      await app.request(`${appUrl}${signedProxyPath(clickPath(a.shop.id), { shop: b.shop.domain })}`),
      "A's token through B's proxy",
    );
    // A's token through A's proxy, but the signature is 5 minutes old (the platform signs for 90 s), made with
    // another secret, or missing.
    const old = String(Math.floor(Date.now() / 1000) - 300);
    const stale = await app.request(
      `${appUrl}${signedProxyPath(clickPath(a.shop.id), { shop: a.shop.domain, timestamp: old })}`,
    );
    expect(stale.status).toBe(401);
    const future = String(Math.floor(Date.now() / 1000) + 3_600);
    const ahead = await app.request(
      `${appUrl}${signedProxyPath(clickPath(a.shop.id), { shop: a.shop.domain, timestamp: future })}`,
    );
    expect(ahead.status).toBe(401);
    const misSigned = await app.request(
      `${appUrl}${signedProxyPath(clickPath(a.shop.id), { shop: a.shop.domain }, "not-the-app-secret")}`,
    );
    expect(misSigned.status).toBe(401);
    expect((await app.request(`${appUrl}${clickPath(a.shop.id)}?shop=${a.shop.domain}`)).status).toBe(401);
    expect(await clickedAt(alertOfA.id)).toBeNull();

    // The real click, through A's proxy: counted once, for A's alert.
    const real = await app.request(`${appUrl}${signedProxyPath(clickPath(a.shop.id), { shop: a.shop.domain })}`);
    expect(real.status).toBe(302);
    const first = await clickedAt(alertOfA.id);
    expect(first).toBeInstanceOf(Date);
    await app.request(`${appUrl}${signedProxyPath(clickPath(a.shop.id), { shop: a.shop.domain })}`);
    expect(await clickedAt(alertOfA.id)).toEqual(first);
  });
});

// ---- Flow's lifecycle callback ----------------------------------------------------------------------------

function lifecycle(
  body: string,
  { secret = getEnv().SHOPIFY_API_SECRET, hmac }: { secret?: string; hmac?: string } = {},
) {
  return app.request(`${appUrl}/flow/lifecycle`, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "x-shopify-hmac-sha256": hmac ?? createHmac("sha256", secret).update(body).digest("base64"),
    },
  });
}
const triggerUses = (shopId: string) =>
  database().selectFrom("FlowTriggerUse").select(["trigger", "enabled"]).where("shopId", "=", shopId).execute();

describe("Flow's trigger lifecycle callback (POST /flow/lifecycle)", () => {
  // HELD: only a body signed with the app's secret is read; a replay changes nothing.
  it("refuses unsigned, mis-signed, oversized and malformed callbacks, and a replay changes nothing", async () => {
    const s = await alertShop();
    const body = JSON.stringify({
      flow_trigger_definition_id: "wishlist-low-stock",
      has_enabled_flow: true,
      shopify_domain: s.shop.domain,
      timestamp: new Date().toISOString(),
    });
    const unsigned = await app.request(`${appUrl}/flow/lifecycle`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    expect(unsigned.status).toBe(401);
    expect((await lifecycle(body, { secret: "not-the-secret" })).status).toBe(401);
    expect((await lifecycle(body, { hmac: "" })).status).toBe(401);
    expect(
      (await lifecycle(body, { hmac: createHmac("sha256", getEnv().SHOPIFY_API_SECRET).update(body).digest("hex") }))
        .status,
    ).toBe(401);
    // Signed for another body
    const otherBody = body.replace("true", "false");
    expect(
      (
        await lifecycle(body, {
          hmac: createHmac("sha256", getEnv().SHOPIFY_API_SECRET).update(otherBody).digest("base64"),
        })
      ).status,
    ).toBe(401);
    // Signed with the webhook secret of an endpoint or the service secret: not the app's secret
    expect((await lifecycle(body, { secret: getEnv().SERVICE_SECRET })).status).toBe(401);

    // Signed, but not JSON, not a callback, or a platform webhook's body (the same HMAC scheme)
    const malformed = await lifecycle("{not json");
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get("content-type")).toContain("application/problem+json");
    expect((await lifecycle(JSON.stringify({ has_enabled_flow: true }))).status).toBe(400);
    expect((await lifecycle(JSON.stringify({ shop_domain: s.shop.domain, customer: { id: 1 } }))).status).toBe(400);
    expect((await lifecycle(JSON.stringify([body]))).status).toBe(400);
    // Over the 1 MiB cap: refused before it is read
    const huge = await lifecycle(JSON.stringify({ pad: "x".repeat(1_100_000) }));
    expect(huge.status).toBe(413);
    expect(await triggerUses(s.shop.id)).toEqual([]);
    // Signed, naming a shop that does not have the app: answered, nothing recorded anywhere.
    const unknown = await lifecycle(body.replace(s.shop.domain, "not-installed.myshopify.com"));
    expect(await unknown.json()).toEqual({ applied: false, reason: "unknown shop" });
    // Signed, naming something that is not a shop domain.
    expect((await lifecycle(body.replace(s.shop.domain, "evil.example/../x"))).status).toBe(400);

    // The real one, then its replay
    expect(await (await lifecycle(body)).json()).toEqual({ applied: true, reason: null });
    expect(await (await lifecycle(body)).json()).toEqual({ applied: false, reason: "older than the one applied" });
    expect(await triggerUses(s.shop.id)).toEqual([{ trigger: "wishlist-low-stock", enabled: true }]);
  });

  // FINDING (Low, defence in depth): "newer timestamp wins" has no upper bound. One callback dated far ahead
  // (the platform's clock wrong once, or a callback signed by anyone holding the app secret) locks the
  // shop's trigger state: every genuine callback after it is "older than the one applied" until that date,
  // so the merchant can no longer switch the Flow trigger off (or on). Fix: refuse (or clamp to now) a
  // `timestamp` more than a few minutes ahead of the server's clock, in applyFlowLifecycle.
  it("FINDING: does not let a callback dated years ahead lock the shop's trigger state", async () => {
    const s = await alertShop();
    const at = (timestamp: string, enabled: boolean) =>
      JSON.stringify({
        flow_trigger_definition_id: "wishlist-back-in-stock",
        has_enabled_flow: enabled,
        shopify_domain: s.shop.domain,
        timestamp,
      });
    await lifecycle(at("2999-01-01T00:00:00Z", true));
    const now = await (await lifecycle(at(new Date().toISOString(), false))).json();
    expect(await triggerUses(s.shop.id)).toEqual([{ trigger: "wishlist-back-in-stock", enabled: false }]);
    expect(now).toEqual({ applied: true, reason: null });
  });
});

describe("Flow's trigger payload", () => {
  // FINDING (Low, latent: an alert carrying another customer): flowPayload writes `customer_id` and
  // `product_id` as JavaScript numbers, so an id past 2^53 (the app takes platform ids up to 2^64 - 1, and the
  // platform's ids are 64-bit) is rounded to a neighbouring id when the payload is written: the workflow runs
  // for another customer (and product) than the alert's. Today's ids are about 2^43, so nothing happens yet.
  // Fix: write the ids' digits as they are (the JSON text built with the id strings, or JSON.rawJSON where
  // the Node version has it) instead of Number(...).
  // FIXED (finding 11): the Admin API client writes variables with JSON.stringify, which has no exact form for
  // integers past 2^53 (Node 20 has no JSON.rawJSON). Such an id is refused, and the alert's trigger fails with
  // the reason, rather than being rounded to another customer's or product's.
  it("never names another customer or product than the alert's, whatever the size of their ids", async () => {
    const { flowPayload } = await import("~/services/alerts/flow.server");
    const alert = {
      kind: "back_in_stock",
      listId: "lst_x",
      variantId: "1",
      currency: "USD",
      newPriceMinor: 100,
      oldPriceMinor: null,
      quantity: 1,
    };
    for (const [customerId, productId] of [
      ["9007199254740993", "1"], // 2^53 + 1
      ["1", "18446744073709551615"], // 2^64 - 1
    ] as const) {
      expect(() => flowPayload({ ...alert, customerId, productId })).toThrow(RangeError);
    }
    const payload = JSON.stringify(flowPayload({ ...alert, customerId: "7391846502913", productId: "8100000008" }));
    expect(payload).toContain('"customer_id":7391846502913');
    expect(payload).toContain('"product_id":8100000008');
  });
});

// ---- The platform's product and stock webhooks ----------------------------------------------------------

const sendWebhook = (topic: string, shopDomain: string, body: string, webhookId?: string) =>
  app.request(`${appUrl}/webhooks/${topic}`, platformWebhook(topic, shopDomain, body, undefined, webhookId));
const refreshes = (shopId: string) =>
  database()
    .selectFrom("ProductRefresh")
    .select(["productId", "requestedAt"])
    .where("shopId", "=", shopId)
    .orderBy("productId")
    .execute();
const countRows = async (table: "PlatformWebhook" | "ProductRefresh" | "CatalogueVariant") =>
  Number(
    (
      await database()
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Shop A with TOTE saved by Ada and its reading stored (inventory item 4100000008), without the worker. */
async function shopWithReading() {
  const a = await alertShop();
  await a.save(ADA, TOTE);
  await replaceProductReading(database(), a.shop.id, TOTE.productId, [
    {
      shopId: a.shop.id,
      productId: TOTE.productId,
      variantId: TOTE.variantId,
      inventoryItemId: "4100000008",
      title: "Default Title",
      priceMinor: 7_800,
      compareAtMinor: null,
      currency: "USD",
      available: false,
      inventoryQuantity: 0,
      imageUrl: null,
      readAt: new Date(),
    },
  ]);
  await database().deleteFrom("ProductRefresh").where("shopId", "=", a.shop.id).execute();
  return a;
}

describe("products/update and inventory_levels/update", () => {
  // HELD: the topics' bodies do not name the shop; the header's shop is taken, and each shop's lookups are its
  // own: another shop's product or inventory item marks nothing, in either shop.
  it("marks nothing when another shop's product or inventory item is sent under a shop's header", async () => {
    const a = await shopWithReading();
    const b = await alertShop();
    const product = await sendWebhook(
      "products/update",
      b.shop.domain,
      JSON.stringify({ id: Number(TOTE.productId), title: "x" }),
    );
    expect(product.status).toBe(200);
    const stock = await sendWebhook(
      "inventory_levels/update",
      b.shop.domain,
      JSON.stringify({
        inventory_item_id: 4100000008,
        location_id: 1,
        available: 5,
        updated_at: new Date().toISOString(),
      }),
    );
    expect(stock.status).toBe(200);
    expect(await refreshes(b.shop.id)).toEqual([]);
    expect(await refreshes(a.shop.id)).toEqual([]);

    // The same under A's header: marked, once
    const mine = await sendWebhook(
      "inventory_levels/update",
      a.shop.domain,
      JSON.stringify({
        inventory_item_id: 4100000008,
        location_id: 1,
        available: 6,
        updated_at: new Date().toISOString(),
      }),
    );
    expect(mine.status).toBe(200);
    expect((await refreshes(a.shop.id)).map((row) => row.productId)).toEqual([TOTE.productId]);
  });

  // HELD: a webhook is processed once, by its id and by its signed body.
  it("processes a replay (same id, or same signed body under a new id or another shop's header) once", async () => {
    const a = await shopWithReading();
    const b = await alertShop();
    const body = JSON.stringify({ id: Number(TOTE.productId), title: "Pebble", updated_at: new Date().toISOString() });
    const id = randomUUID();
    expect((await sendWebhook("products/update", a.shop.domain, body, id)).status).toBe(200);
    const [first] = await refreshes(a.shop.id);
    expect(first?.productId).toBe(TOTE.productId);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const ledger = await countRows("PlatformWebhook");
    expect((await sendWebhook("products/update", a.shop.domain, body, id)).status).toBe(200);
    expect((await sendWebhook("products/update", a.shop.domain, body)).status).toBe(200);
    expect((await sendWebhook("products/update", b.shop.domain, body)).status).toBe(200);
    expect(await refreshes(a.shop.id)).toEqual([first]);
    expect(await refreshes(b.shop.id)).toEqual([]);
    expect(await countRows("PlatformWebhook")).toBe(ledger);
  });

  // HELD: bad bodies are refused with a problem document before anything is written.
  it("refuses unsigned, oversized, malformed and id-less bodies with a problem, writing nothing", async () => {
    const a = await shopWithReading();
    const before = await countRows("PlatformWebhook");
    const cases: Array<[string, string, string, number]> = [
      ["products/update", "not json", "malformed JSON", 400],
      ["products/update", JSON.stringify({ title: "no id" }), "no id", 400],
      ["products/update", JSON.stringify({ id: -1 }), "a negative id", 400],
      ["products/update", JSON.stringify({ id: 1.5 }), "a fraction", 400],
      ["products/update", JSON.stringify({ id: "1 OR 1=1" }), "an id with SQL", 400],
      ["products/update", JSON.stringify({ id: "0x10" }), "a hex id", 400],
      ["products/update", JSON.stringify({ id: 2 ** 60 }), "an id past 2^53", 400],
      ["inventory_levels/update", JSON.stringify({ inventory_item_id: null }), "a null item", 400],
      ["inventory_levels/update", JSON.stringify({ inventory_item_id: [1, 2] }), "an array of items", 400],
      ["inventory_levels/update", JSON.stringify({ pad: "x".repeat(1_100_000), inventory_item_id: 1 }), "1.1 MB", 413],
    ];
    for (const [topic, body, what, status] of cases) {
      const answer = await sendWebhook(topic, a.shop.domain, body);
      expect(answer.status, what).toBe(status);
      expect(answer.headers.get("content-type"), what).toContain("application/problem+json");
    }
    const unsigned = await app.request(`${appUrl}/webhooks/products/update`, {
      ...platformWebhook("products/update", a.shop.domain, JSON.stringify({ id: 1 }), "not-the-app-secret"),
    });
    expect(unsigned.status).toBe(401);
    expect(await countRows("PlatformWebhook")).toBe(before);
    expect(await refreshes(a.shop.id)).toEqual([]);
  });

  // FINDING (Low, OWASP API4 resource consumption; decision 050 says "Products nobody saved cost one index
  // lookup"): every products/update and inventory_levels/update, saved product or not, opens a write
  // transaction and writes two PlatformWebhook rows (its id and its body digest), kept 7 days. These are the
  // platform's busiest topics (an inventory level changes with every sale, in every shop with the app, saved
  // or not): 200 webhooks about products nobody saved wrote 400 rows here, each under SQLite's one write
  // lock, beside the storefront's saves. Fix: in receive.server.ts markForReading, look the products up
  // first and answer 200 without a ledger record when none is saved (a replay of a no-op is a no-op).
  it("FINDING: writes nothing for a flood of webhooks about products nobody saved", async () => {
    const b = await alertShop();
    const before = {
      ledger: await countRows("PlatformWebhook"),
      refresh: await countRows("ProductRefresh"),
      readings: await countRows("CatalogueVariant"),
    };
    for (let index = 0; index < 100; index++) {
      const productId = 9_000_000_000 + index;
      expect((await sendWebhook("products/update", b.shop.domain, JSON.stringify({ id: productId }))).status).toBe(200);
      const level = JSON.stringify({ inventory_item_id: productId, location_id: 1, available: index });
      expect((await sendWebhook("inventory_levels/update", b.shop.domain, level)).status).toBe(200);
    }
    expect(await countRows("ProductRefresh")).toBe(before.refresh);
    // What held: no refresh request, no reading.
    expect(await countRows("CatalogueVariant")).toBe(before.readings);
    expect(await refreshes(b.shop.id)).toEqual([]);
    // What did not: the ledger.
    expect((await countRows("PlatformWebhook")) - before.ledger).toBe(0);
  });
});

// ---- The admin's Alerts page ------------------------------------------------------------------------------

/** A request of the embedded admin for the shop: a session token of one of its staff (`userId`). */
async function adminRequest(
  shopDomain: string,
  path: string,
  init: { method?: string; body?: string; type?: string; userId?: string; headers?: Record<string, string> } = {},
) {
  const token = await signSessionToken({
    shopDomain,
    apiKey: getEnv().SHOPIFY_API_KEY,
    apiSecret: getEnv().SHOPIFY_API_SECRET,
    userId: init.userId,
  });
  const headers = new Headers({ authorization: `Bearer ${token}`, "user-agent": BROWSER, ...init.headers });
  if (init.type) headers.set("content-type", init.type);
  return app.request(`${appUrl}${path}`, { method: init.method ?? "GET", headers, body: init.body });
}
/** The page's save (its JSON form), as a staff member; answers the action's single-fetch text. */
async function saveSettings(shopDomain: string, settings: object, userId = "1") {
  const answer = await adminRequest(shopDomain, "/app/alerts.data", {
    method: "POST",
    type: "application/json",
    body: JSON.stringify(settings),
    userId,
  });
  expect(answer.status).toBe(200);
  return answer.text();
}
/** One of the page's forms (`intent`), as a staff member. */
async function submitForm(shopDomain: string, fields: Record<string, string>, userId = "1") {
  const answer = await adminRequest(shopDomain, "/app/alerts.data", {
    method: "POST",
    type: "application/x-www-form-urlencoded",
    body: new URLSearchParams(fields).toString(),
    userId,
  });
  expect(answer.status).toBe(200);
  return answer.text();
}
const storedSettings = async (shopId: string) => {
  const row = (await findShopById(database(), shopId))!;
  return { alertSettings: row.alertSettings, smtpPasswordSealed: row.smtpPasswordSealed };
};

/** An SMTP server on MAIL_HOST that takes any login and keeps the logins, envelopes and messages it sees. */
async function startRecordingSmtp() {
  const logins: Array<{ username: string; password: string }> = [];
  const messages: Array<{ rcptTo: string[]; raw: string }> = [];
  const smtp = new SMTPServer({
    closeTimeout: 1_000,
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    authOptional: true,
    onAuth(auth, _session, callback) {
      logins.push({ username: auth.username ?? "", password: auth.password ?? "" });
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        messages.push({
          rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, MAIL_HOST, resolve));
  return {
    port: (smtp.server.address() as AddressInfo).port,
    logins,
    messages,
    close: () => new Promise<void>((resolve) => smtp.close(() => resolve())),
  };
}

/** The headers of a raw message, unfolded, by lower-case name (a repeated header's values in order). */
function headersOf(raw: string): Map<string, string[]> {
  const head = raw.split(/\r\n\r\n/, 1)[0]!.replace(/\r\n[ \t]+/g, " ");
  const headers = new Map<string, string[]>();
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()]);
  }
  return headers;
}

describe("the admin's Alerts page", () => {
  let recording: Awaited<ReturnType<typeof startRecordingSmtp>>;
  beforeAll(async () => {
    recording = await startRecordingSmtp();
  });
  afterAll(async () => {
    closeSmtpTransports();
    await recording.close();
  });

  // HELD: the merchant names the SMTP host, so the app resolves it and connects only to a public address (or
  // one of WEBHOOK_ALLOWED_NETWORKS): loopback in every spelling, link-local (cloud metadata), private,
  // carrier-grade NAT, unspecified, IPv4-mapped and NAT64 forms of them, and names resolving to loopback are
  // refused before a connection is made. A TCP trap on every interface of this machine sees no connection.
  it("never connects a test email to a private, loopback or metadata address, in any spelling", async () => {
    const trapped: string[] = [];
    const trap = createServer((socket: Socket) => {
      trapped.push(String(socket.remoteAddress));
      socket.end("220 trap ESMTP\r\n");
    });
    await new Promise<void>((resolve) => trap.listen(0, "::", resolve));
    const trapPort = (trap.address() as AddressInfo).port;
    try {
      const hosts = [
        "127.0.0.1",
        "127.0.0.2",
        "127.1",
        "2130706433",
        "0x7f000001",
        "0177.0.0.1",
        "0.0.0.0",
        "localhost",
        "169.254.169.254",
        "10.0.0.1",
        "172.16.0.1",
        "192.168.1.1",
        "100.64.0.1",
        "[::1]",
        "[::]",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:2]",
        "[::ffff:a9fe:a9fe]",
        "[::127.0.0.1]",
        "[64:ff9b::a9fe:a9fe]",
        "[fe80::1]",
        "[fd00::1]",
      ];
      for (const host of hosts) {
        const { shop } = await alertShop();
        await saveSettings(shop.domain, {
          email: {
            enabled: true,
            fromAddress: "wishlist@harbor.example",
            smtp: { host, port: trapPort, security: "none" },
          },
        });
        expect(JSON.parse((await storedSettings(shop.id)).alertSettings).email.smtp.host, host).toBe(host);
        const answer = await submitForm(shop.domain, { intent: "test", to: `owner@${shop.domain}` });
        expect(answer, host).toMatch(/resolves to an address that is not public|does not resolve/);
      }
      expect(trapped).toEqual([]);
    } finally {
      await new Promise((resolve) => trap.close(resolve));
    }
  });

  // FINDING (Medium, OWASP API1/API3, credential disclosure): the SMTP password is write-only, but it stays
  // stored when the host (or port, or security) changes and the password field is left empty. Anyone who can
  // open the app's Alerts page for the shop (any staff member with the app's permission, or script running
  // in the admin) points the host at a server of theirs and presses "Send test email": the app logs in there
  // with the merchant's SMTP password (here in clear, AUTH PLAIN, as security "none" allows; with TLS the
  // attacker's own certificate verifies for their own name). Fix: in saveAlertSettings, when host, port,
  // security or username differ from the stored ones, require the password again (refuse the save, or clear
  // the sealed password), as browsers and Grafana do for a data source's URL change. (Checked: clearing it
  // when `email.smtp` changes makes this test pass.)
  it("FINDING: does not send the stored SMTP password to a host it was not saved for", async () => {
    const { shop } = await alertShop();
    const secretPassword = `merchant-smtp-${randomUUID()}`;
    const email = {
      enabled: true,
      fromName: "Harbor & Co",
      fromAddress: "wishlist@harbor.example",
      smtp: { host: MAIL_HOST, port: mailbox.port, security: "none", username: "mailer" },
    };
    // The owner saves the shop's real server and its password.
    await saveSettings(shop.domain, { email, smtpPassword: secretPassword });
    expect((await storedSettings(shop.id)).smtpPasswordSealed).not.toBeNull();
    // Another staff member changes the port (a server of theirs), leaving the password field empty ...
    await saveSettings(shop.domain, { email: { ...email, smtp: { ...email.smtp, port: recording.port } } }, "2");
    // ... and sends a test email.
    await submitForm(shop.domain, { intent: "test", to: `owner@${shop.domain}` }, "2");
    expect(recording.logins.map((login) => login.password)).not.toContain(secretPassword);
  });

  // HELD: the password is write-only: never in the page's data, its document, the save's answer or a preview.
  it("never sends the SMTP password to the browser", async () => {
    const { shop } = await alertShop();
    const secretPassword = `merchant-smtp-${randomUUID()}`;
    const saved = await saveSettings(shop.domain, {
      email: {
        enabled: true,
        fromAddress: "wishlist@harbor.example",
        smtp: { host: MAIL_HOST, port: recording.port, security: "none", username: "mailer" },
      },
      smtpPassword: secretPassword,
    });
    expect((await storedSettings(shop.id)).smtpPasswordSealed).not.toBeNull();
    const data = await (await adminRequest(shop.domain, "/app/alerts.data")).text();
    const documentPage = await (
      await adminRequest(shop.domain, `/app/alerts?embedded=1&shop=${shop.domain}`, {
        headers: { accept: "text/html" },
      })
    ).text();
    const preview = await submitForm(shop.domain, { intent: "preview", template: "digest", language: "en" });
    const sent = recording.messages.length;
    const test = await submitForm(shop.domain, { intent: "test", to: `owner@${shop.domain}` });
    await until(
      () => recording.messages.length,
      (count) => count > sent,
      "the test email",
    );
    for (const [what, text] of Object.entries({ saved, data, documentPage, preview, test })) {
      expect(text, what).not.toContain(secretPassword);
      expect(text, what).not.toContain(Buffer.from(secretPassword).toString("base64"));
    }
    expect((await storedSettings(shop.id)).alertSettings).not.toContain(secretPassword);
    expect((await storedSettings(shop.id)).smtpPasswordSealed).not.toContain(secretPassword);
  });

  // HELD: no header can be injected through the merchant's fields: CR/LF are refused in every field that
  // reaches a header or an SMTP command, and other line separators are encoded by the mailer.
  it("refuses line breaks in the sender fields, and lets no header or recipient in through other separators", async () => {
    const { shop } = await alertShop();
    const base = {
      enabled: true,
      fromName: "Harbor",
      fromAddress: "wishlist@harbor.example",
      replyTo: "help@harbor.example",
      smtp: { host: MAIL_HOST, port: recording.port, security: "none", username: "mailer" },
    };
    await saveSettings(shop.domain, { email: base, smtpPassword: "mailer's password" });
    const before = await storedSettings(shop.id);
    expect(JSON.parse(before.alertSettings).email.replyTo).toBe(base.replyTo);
    const injections = [
      { email: { ...base, fromName: "Harbor\r\nBcc: victim@evil.example" } },
      { email: { ...base, fromName: "Harbor\nBcc: victim@evil.example" } },
      { email: { ...base, fromName: "Harbor\u0000Bcc" } },
      { email: { ...base, replyTo: "help@harbor.example\r\nBcc: victim@evil.example" } },
      { email: { ...base, replyTo: "help@harbor.example>, <victim@evil.example" } },
      { email: { ...base, fromAddress: "wishlist@harbor.example\r\nBcc: victim@evil.example" } },
      { email: { ...base, fromAddress: "<victim@evil.example>wishlist@harbor.example" } },
      { email: { ...base, smtp: { ...base.smtp, username: "mailer\r\nRCPT TO:<victim@evil.example>" } } },
      { email: { ...base, smtp: { ...base.smtp, host: `${MAIL_HOST}\r\nRCPT TO:<victim@evil.example>` } } },
      { email: base, smtpPassword: "pw\r\nRCPT TO:<victim@evil.example>" },
    ];
    for (const settings of injections) {
      expect(await saveSettings(shop.domain, settings), JSON.stringify(settings)).toContain("fieldErrors");
    }
    expect(await storedSettings(shop.id)).toEqual(before);

    // The test email's recipient is one address, nothing more.
    for (const recipient of [
      "merchant@harbor.example, victim@evil.example",
      "merchant@harbor.example\r\nRCPT TO:<victim@evil.example>",
      "Merchant <victim@evil.example>",
      '"victim@evil.example" <merchant@harbor.example>',
      "victim@evil.example>\r\nBcc: x@evil.example",
    ]) {
      expect(await submitForm(shop.domain, { intent: "test", to: recipient }), recipient).toContain("fieldErrors");
    }
    expect(recording.messages.flatMap((message) => message.rcptTo)).not.toContain("victim@evil.example");

    // U+2028, U+2029 and NEL are not line breaks to SMTP, but a careless mailer could fold on them.
    const fromName = "Harbor\u2028Bcc: victim@evil.example\u2029X-Injected: 1\u0085Subject: spoofed";
    await saveSettings(shop.domain, { email: { ...base, fromName } });
    expect(JSON.parse((await storedSettings(shop.id)).alertSettings).email.fromName).toBe(fromName);
    const sent = recording.messages.length;
    await submitForm(shop.domain, { intent: "test", to: `owner@${shop.domain}` });
    const message = await until(
      () => recording.messages[sent],
      (found) => found !== undefined,
      "the test email",
    );
    expect(message!.rcptTo).toEqual([`owner@${shop.domain}`]);
    const headers = headersOf(message!.raw);
    expect(headers.has("bcc")).toBe(false);
    expect(headers.has("x-injected")).toBe(false);
    expect(headers.get("from")).toHaveLength(1);
    expect(headers.get("subject")).toHaveLength(1);
    expect(headers.get("subject")![0]).not.toContain("spoofed");
  });

  // FINDING (Low, abuse: OWASP API6 unrestricted access to a sensitive business flow): the test email goes to
  // any address the page is given, with content the merchant writes (the sender name, the catalogue's product
  // titles and images), from the app's own servers, 5 a minute per shop with no daily bound: 7,200 a day per
  // installed shop, and shops are free to make. Pointed at a public open relay (any public host and port is
  // taken), the app's IP address sends the spam and carries the blame. Fix: send the test email only to the
  // shop's contact email (shopContactEmail, which the page already offers) or the signed-in staff member's
  // own address, and bound it per day as well as per minute.
  it("FINDING: sends the test email only to the shop's own address", async () => {
    const { shop } = await alertShop();
    await saveSettings(shop.domain, {
      email: {
        enabled: true,
        fromName: "Totally your bank",
        fromAddress: "wishlist@harbor.example",
        smtp: { host: MAIL_HOST, port: recording.port, security: "none" },
      },
    });
    const victim = `stranger-${randomUUID()}@victim.example`;
    await submitForm(shop.domain, { intent: "test", to: victim });
    expect(recording.messages.flatMap((message) => message.rcptTo)).not.toContain(victim);
  });

  // HELD: the page's forms need a session token of the shop; another site's form post is refused at the edge,
  // and a post without a token changes nothing.
  it("takes no cross-site or token-less post, and re-subscribes no other shop's customer", async () => {
    const a = await alertShop();
    const b = await alertShop();
    const before = await storedSettings(a.shop.id);
    const json = JSON.stringify({
      email: { enabled: true, fromAddress: "x@evil.example", smtp: { host: "evil.example" } },
    });
    for (const path of ["/app/alerts", "/app/alerts.data", "/app/alerts?index"]) {
      const crossSite = await app.request(`${appUrl}${path}`, {
        method: "POST",
        headers: { origin: "https://evil.example", "content-type": "application/json", "user-agent": BROWSER },
        body: json,
      });
      expect(crossSite.status, path).toBe(403);
      const tokenless = await app.request(`${appUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "user-agent": BROWSER },
        body: json,
      });
      expect(tokenless.status, path).not.toBe(200);
      const forged = await app.request(`${appUrl}${path}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": BROWSER,
          authorization: `Bearer ${await signSessionToken({
            shopDomain: a.shop.domain,
            apiKey: getEnv().SHOPIFY_API_KEY,
            apiSecret: "not-the-app-secret",
          })}`,
        },
        body: json,
      });
      expect(forged.status, path).not.toBe(200);
    }
    expect(await storedSettings(a.shop.id)).toEqual(before);

    // B's suppressed customer, named by A's staff: nothing happens to B's list.
    const at = new Date();
    await database()
      .insertInto("AlertSuppression")
      .values({ shopId: b.shop.id, customerId: ADA, reason: "unsubscribed", createdAt: at })
      .execute();
    const answer = await submitForm(a.shop.domain, { intent: "resubscribe", customerId: ADA });
    expect(answer).toContain("not on the suppression list");
    expect(await suppressed(b.shop.id)).toEqual([{ customerId: ADA, reason: "unsubscribed", detail: null }]);
  });
});

// ---- The emails, with the real worker -----------------------------------------------------------------

const to = (address: string) => (message: MailboxMessage) => message.to.includes(address);
const mailTo = (address: string) => mailbox.messages().filter(to(address));
const unsubscribeOf = (message: MailboxMessage) =>
  new URL(/<(http[^>]+)>/.exec(String(message.headers["list-unsubscribe"]))![1]!);
const clickTokenOf = (message: MailboxMessage, shopDomain: string) =>
  new RegExp(`https://${shopDomain.replaceAll(".", "\\.")}/apps/service/alerts/click/([A-Za-z0-9_.-]+)`).exec(
    message.html ?? "",
  )?.[1];

/** The customer's alert data in the shop's three alert tables. */
async function alertRowsOf(shopId: string, customerId: string) {
  const of = (table: "Alert" | "AlertMessage" | "AlertSuppression") =>
    database()
      .selectFrom(table)
      .selectAll()
      .where("shopId", "=", shopId)
      .where("customerId", "=", customerId)
      .execute();
  return { alerts: await of("Alert"), messages: await of("AlertMessage"), suppressions: await of("AlertSuppression") };
}

/** The platform's customers/redact for the customer, and the worker's redaction done. */
async function redact(s: AlertShop, customerId: string) {
  const body = JSON.stringify({
    shop_id: 1,
    shop_domain: s.shop.domain,
    customer: { id: Number(customerId), email: s.emailOf(customerId), phone: null },
    orders_to_redact: [],
  });
  expect((await sendWebhook("customers/redact", s.shop.domain, body)).status).toBe(200);
  await until(
    () =>
      database()
        .selectFrom("ComplianceRequest")
        .select(["topic", "status"])
        .where("shopId", "=", s.shop.id)
        .where("topic", "=", "customers/redact")
        .execute(),
    (rows) => rows.length === 1 && rows[0]!.status === "succeeded",
    "the redaction done",
  );
}

/** Every Redis key of this file, with its value where it is a string or a hash, as text. */
async function redisText(): Promise<string> {
  const { Redis } = await import("ioredis");
  const redis = new Redis(getEnv().REDIS_URL);
  try {
    const parts: string[] = [];
    const stream = redis.scanStream({ match: `${getEnv().REDIS_PREFIX}:*`, count: 500 });
    for await (const keys of stream as AsyncIterable<string[]>) {
      for (const key of keys) {
        parts.push(key);
        const type = await redis.type(key);
        if (type === "string") parts.push(String(await redis.get(key)));
        if (type === "hash") parts.push(JSON.stringify(await redis.hgetall(key)));
        if (type === "list") parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
        if (type === "zset") parts.push(JSON.stringify(await redis.zrange(key, 0, -1)));
      }
    }
    return parts.join("\n");
  } finally {
    redis.disconnect();
  }
}

describe("with the worker", () => {
  let worker: ReturnType<typeof startProcess>;
  beforeAll(async () => {
    worker = startProcess("worker/index.ts", { SHOPIFY_ADMIN_API_ORIGIN: platform.origin });
    await worker.waitForOutput(/worker ready/, 90_000);
  });
  afterAll(async () => {
    expect(await worker.stop()).toBe(0);
  });

  // HELD: the product's title is the merchant's text (the catalogue's), and so is the sender name; neither
  // adds a header, a recipient or markup to the email.
  it("lets no product title or sender name inject a header, a recipient or markup into the email", async () => {
    const s = await alertShop({
      email: { fromName: `<b>Demo</b> "Shop" <boss@evil.example>\u2028Bcc: victim@evil.example` },
    });
    const title = `Tote\r\nBcc: victim@evil.example\r\nX-Injected: 1\r\n\r\n<script>alert(1)</script><img src=x onerror=alert(2)>`;
    s.data.products.find((product) => product.id === TOTE.productId)!.title = title;
    await s.save(ADA, TOTE);
    await until(
      () => database().selectFrom("Item").select("titleSnapshot").where("shopId", "=", s.shop.id).executeTakeFirst(),
      (item) => item?.titleSnapshot === title,
      "the catalogue's title on the item",
    );
    await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await s.change(TOTE.variantId, { inventoryQuantity: 20 });
    const email = await mailbox.waitFor(to(s.emailOf(ADA)), { timeoutMs: 90_000 });
    expect(email.envelope.to).toEqual([s.emailOf(ADA)]);
    expect(email.to).toEqual([s.emailOf(ADA)]);
    expect(email.cc).toEqual([]);
    expect(email.headers.bcc).toBeUndefined();
    expect(email.headers["x-injected"]).toBeUndefined();
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.from).toContain("wishlist@demo-shop.example");
    expect(email.from).not.toMatch(/<boss@evil\.example>\s*$/);
    const { document } = new JSDOM(email.html ?? "").window;
    expect(document.querySelectorAll("script, b, img[src='x']")).toHaveLength(0);
    const handlers = [...document.querySelectorAll("*")].flatMap((element) =>
      element.getAttributeNames().filter((name) => name.startsWith("on")),
    );
    expect(handlers).toEqual([]);
    expect(document.body.textContent).toContain("<script>alert(1)</script>");
  });

  // HELD: the evaluation and the sender scope every statement by shop: two shops with the same customer and
  // product ids (the stand-in's) never mix; the email's links name its own shop.
  it("never gives one shop's alert, email or link another shop's customer or product", async () => {
    const a = await alertShop();
    const b = await alertShop();
    await a.save(ADA, TOTE);
    await b.save(ADA, TOTE);
    await a.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await b.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
    await a.change(TOTE.variantId, { inventoryQuantity: 20 });
    const email = await mailbox.waitFor(to(a.emailOf(ADA)), { timeoutMs: 90_000 });
    const [message] = await until(a.messages, (rows) => rows[0]?.state === "sent", "A's message sent");
    const [alert] = await a.alerts();
    expect(alert).toMatchObject({ customerId: ADA, productId: TOTE.productId, messageId: message!.id });
    expect(await b.alerts()).toEqual([]);
    expect(await b.messages()).toEqual([]);
    expect(mailTo(b.emailOf(ADA))).toEqual([]);
    const unsubscribeClaims = decode(tokenOf(unsubscribeOf(email).pathname).split(".")[0]!);
    expect(unsubscribeClaims).toMatchObject({ s: a.shop.id, c: ADA });
    const clickClaims = decode(clickTokenOf(email, a.shop.domain)!.split(".")[0]!);
    expect(clickClaims).toMatchObject({ s: a.shop.id, m: message!.id, a: alert!.id, h: TOTE.handle });
    expect(email.html).not.toContain(b.shop.domain);
  });

  describe("a customer whose address the mail server refused, then redacted", () => {
    let s: AlertShop;
    let address: string;
    let beforeRedaction: Awaited<ReturnType<typeof alertRowsOf>>;
    beforeAll(async () => {
      s = await alertShop();
      address = s.emailOf(ADA);
      mailbox.rejectRecipients(address);
      await s.save(ADA, TOTE);
      await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
      await s.change(TOTE.variantId, { inventoryQuantity: 20 });
      await until(s.messages, (rows) => rows[0]?.state === "failed", "the message refused");
      beforeRedaction = await alertRowsOf(s.shop.id, ADA);
      mailbox.rejectRecipients(null);
      await redact(s, ADA);
    });

    // FINDING (Low-Medium, privacy; decision 050 and docs/privacy.md say "No email address is stored"): a
    // refusal's text is kept as the server wrote it, in AlertSuppression.detail and AlertMessage.error, and
    // servers name the address they refuse ("550 5.1.1 <ada@...>: Recipient address rejected"): the
    // customer's address is stored for as long as the suppression entry lives (while the shop has the app),
    // and shown on the Alerts page. Fix: keep the reply's code and enhanced status only, or replace
    // addresses in it (as redactAddresses does for IP addresses) before storing and logging it.
    it("FINDING: stores no email address", () => {
      expect(beforeRedaction.suppressions).toHaveLength(1);
      expect(JSON.stringify(beforeRedaction)).not.toContain(address);
    });

    // HELD: customers/redact erases the customer from the alert tables, and no Redis key or value names them.
    it("keeps nothing of the customer in the alert tables or Redis after customers/redact", async () => {
      expect(await alertRowsOf(s.shop.id, ADA)).toEqual({ alerts: [], messages: [], suppressions: [] });
      const redis = await redisText();
      expect(redis).not.toContain(address);
      expect(redis).not.toContain(`"customerId":"${ADA}"`);
      // No key of the shop names them (the shopper rate-limit counter `<shop>:c:<customer>` included).
      const keys = redis.split("\n").filter((line) => line.startsWith(`${getEnv().REDIS_PREFIX}:`));
      expect(keys.filter((key) => key.includes(s.shop.id) && key.includes(`c:${ADA}`))).toEqual([]);
    });

    // FINDING (Low, privacy): the worker logs the refusal's text with the message id ("alert email refused:
    // the address is suppressed", sender.server.ts), so the operator's log keeps the customer's address past
    // their redaction (and past any log-retention promise about personal data). Fix: as above, log the
    // reply's code only.
    it("FINDING: leaves the customer's address in no log line after customers/redact", () => {
      expect(worker.output()).toContain("alert email refused");
      expect(worker.output()).not.toContain(address);
    });
  });

  // FINDING (Medium, privacy: a redaction undone): a send in flight when customers/redact runs still ends in
  // `insertSuppression` when the server refuses the address, after the redaction deleted the customer's rows:
  // the suppression entry (customer id and, with the finding above, their address) is written back and stays
  // for as long as the shop has the app. The window is the SMTP transaction (up to the 30 s socket timeout),
  // not a millisecond. Fix: in sendBatch, write the suppression only if the message still exists (e.g.
  // finishMessage first, in the same transaction, and insert only when it updated a row), or have the
  // redaction wait for the message's lease.
  it("FINDING: writes no suppression entry back for a customer redacted while their email was being sent", async () => {
    const held: Array<(refuse: boolean) => void> = [];
    const gate = new SMTPServer({
      // The worker's pooled connection stays open: closing waits a second for it, not smtp-server's 30 s.
      closeTimeout: 1_000,
      disabledCommands: ["STARTTLS"],
      authOptional: true,
      onRcptTo(rcpt, _session, callback) {
        held.push((refuse) =>
          refuse
            ? callback(
                Object.assign(new Error(`<${rcpt.address}>: Recipient address rejected: User unknown`), {
                  responseCode: 550,
                }),
              )
            : callback(),
        );
      },
      onData(stream, _session, callback) {
        stream.resume();
        stream.on("end", () => callback());
      },
    });
    await new Promise<void>((resolve) => gate.listen(0, MAIL_HOST, resolve));
    try {
      const s = await alertShop({
        email: { smtp: { host: MAIL_HOST, port: (gate.server.address() as AddressInfo).port, security: "none" } },
      });
      await s.save(ADA, TOTE);
      await s.read(TOTE.productId, ([row]) => row!.inventoryQuantity === 0);
      await s.change(TOTE.variantId, { inventoryQuantity: 20 });
      // The sender has said RCPT TO: the email is in flight.
      await until(
        () => held.length,
        (count) => count === 1,
        "the email in flight",
      );
      await redact(s, ADA);
      expect(await alertRowsOf(s.shop.id, ADA)).toEqual({ alerts: [], messages: [], suppressions: [] });
      // The server refuses the address.
      held[0]!(true);
      await until(
        () => worker.output().split("\n"),
        (lines) => lines.some((line) => line.includes(s.shop.id) && line.includes("alert email refused")),
        "the sender's answer to the refusal",
      );
      expect(await alertRowsOf(s.shop.id, ADA)).toEqual({ alerts: [], messages: [], suppressions: [] });
    } finally {
      await new Promise<void>((resolve) => gate.close(() => resolve()));
    }
  });

  // FINDING (Medium, correctness: alerts silently lost): an alert's change key is a digest of the product's
  // new reading alone, and (shopId, customerId, productId, kind, changeKey) is unique, so when the product comes
  // back to a reading it had when it alerted before (the scarf down to the same 1 unit left next week; a
  // product without tracked stock sold out and back), the insert is a silent no-op (onConflict doNothing): no
  // alert, though the cooldown is over and the rule fires. It stays so for ALERT_RETENTION_DAYS (90), until
  // the old alert is deleted. (A price drop is spared only because it is measured from the price last
  // alerted.) Fix: make the key name the change, not only where it ended: add the stored reading's `readAt`
  // (a re-run of a cut-short evaluation sees the same stored reading, since the new one is written after
  // the alerts; a later change from the same numbers does not). The previous reading's numbers are not
  // enough: here both changes go from 30 to 1.
  it("FINDING: alerts again when a product comes back to an earlier reading after the cooldown", async () => {
    const s = await alertShop({ cooldownDays: 1 });
    /** The cooldown (a day) passed: the shop's alerts moved two days back. */
    const dayPasses = () =>
      database()
        .updateTable("Alert")
        .set({ createdAt: new Date(Date.now() - 2 * 24 * 60 * 60 * 1000) })
        .where("shopId", "=", s.shop.id)
        .execute();
    await s.save(ADA, SCARF);
    await s.read(SCARF.productId, ([row]) => row!.inventoryQuantity === 3);
    await s.change(SCARF.variantId, { inventoryQuantity: 2 });
    await until(s.alerts, (rows) => rows.length === 1, "the first low-stock alert");

    // Restocked, the cooldown over, down to 1: the rule fires again (the control).
    await s.change(SCARF.variantId, { inventoryQuantity: 30 });
    await s.read(SCARF.productId, ([row]) => row!.inventoryQuantity === 30);
    await dayPasses();
    await s.change(SCARF.variantId, { inventoryQuantity: 1 });
    await until(s.alerts, (rows) => rows.length === 2, "the second low-stock alert");

    // Restocked, the cooldown over, down to 1 again: the same reading as the second alert's.
    await s.change(SCARF.variantId, { inventoryQuantity: 30 });
    await s.read(SCARF.productId, ([row]) => row!.inventoryQuantity === 30);
    await dayPasses();
    await s.change(SCARF.variantId, { inventoryQuantity: 1 });
    await s.read(SCARF.productId, ([row]) => row!.inventoryQuantity === 1);
    // (The moved-back alerts share one time, so their order is not asserted.)
    expect((await s.alerts()).map((alert) => `${alert.kind}:${alert.quantity}`).sort()).toEqual([
      "low_stock:1",
      "low_stock:1",
      "low_stock:2",
    ]);
  });
});

// ---- The web process's request log ------------------------------------------------------------------

describe("the web process's log", () => {
  // FINDING (Low, privacy): the request log writes each request's path (deliberately not its query, "it can
  // carry signatures and anonymous ids"), and the unsubscribe link's path is its token: base64url JSON
  // naming the shop and the customer, in clear. Every unsubscribe page view and one-click POST (mail
  // providers send the POST; scanners fetch the GET) leaves the customer's id in the log, past their
  // redaction. Fix: log the route's pattern for /alerts/* and /proxy/alerts/* (or cut the token), in
  // app/api/http-app.server.ts's request logger.
  it("FINDING: does not write the customer's id (the unsubscribe token) in the request log", async () => {
    const s = await alertShop();
    const token = tokenOf(unsubscribeUrl({ shopId: s.shop.id, customerId: "7391846502913", locale: "en" }));
    const { freePort } = await import("../support/processes");
    const port = await freePort();
    const web = startProcess("server/index.ts", { NODE_ENV: "test", PORT: String(port), HOST: "127.0.0.1" });
    try {
      await web.waitForOutput(/web server listening/);
      const page = await fetch(`http://127.0.0.1:${port}/alerts/unsubscribe/${token}`, {
        headers: { accept: "text/html" },
      });
      expect(page.status).toBe(200);
      await web.waitForOutput(/"path":"\/alerts\/unsubscribe\//);
      const logged = /"path":"\/alerts\/unsubscribe\/([^"]*)"/.exec(web.output())![1]!;
      // FIXED: the token's place in the logged path is a placeholder.
      expect(logged).toBe(":token");
      expect(web.output()).not.toContain(token);
    } finally {
      expect(await web.stop()).toBe(0);
    }
  });
});
