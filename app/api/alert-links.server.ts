/**
 * The links of the alert emails (docs/decisions/050-wishlist-alerts.md):
 *  - `GET /alerts/unsubscribe/<token>` shows a page with one button; `POST` to the same URL unsubscribes.
 *    The POST is RFC 8058's one-click: mail clients send `List-Unsubscribe=One-Click` as a form body, with
 *    no cookie, so the signed token is the whole authority. A GET never unsubscribes (link scanners follow
 *    links).
 *  - `GET /proxy/alerts/click/<token>`, reached through the app proxy on the shop's domain
 *    (`/apps/service/alerts/click/<token>`), records the click and redirects to the product page. Both the
 *    platform's proxy signature and the token's must verify, and name the same shop.
 * A token that does not verify answers 400 `alert-link-invalid` (an HTML page for a browser).
 *
 * And Shopify Flow's trigger lifecycle callback, `POST /flow/lifecycle` (app/services/alerts/flow.server.ts).
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Context, Hono } from "hono";
import { z } from "zod";
import { getEnv } from "~/env.server";
import { rateLimitPrefix } from "~/lib/rate-limit-keys.server";
import { getRateLimitRedis, whenRedisReady } from "~/redis.server";
import { database } from "~/data/database.server";
import { findAlertOfMessage, markClicked } from "~/data/alert-rows.server";
import { AppError } from "~/lib/problems";
import { applyFlowLifecycle, triggerOf } from "~/services/alerts/flow.server";
import { shopDomain } from "~/shopify.server";
import { readClickToken, readUnsubscribeToken } from "~/services/alerts/links.server";
import { alertPageWords } from "~/services/alerts/email-template";
import { unsubscribeCustomer, unsubscribePageFacts } from "~/services/alerts/suppression.server";
import { escapeHtml } from "~/lib/html";
import { negotiateLocale } from "~/lib/negotiate-locale";
import { verifyAppProxyRequest } from "./v1/auth.server";
import { methodNotAllowed } from "./v1/route.server";
import type { HttpAppEnv } from "./http-env";

/** Flow's trigger lifecycle callback body (its documented members; others are ignored). */
const lifecycleBody = z.object({
  flow_trigger_definition_id: z.string().min(1).max(255),
  has_enabled_flow: z.boolean(),
  shopify_domain: z.string().min(1).max(255),
  timestamp: z.iso.datetime({ offset: true }),
});

function page(c: Context, status: 200 | 400, lang: string, title: string, body: string) {
  return c.html(
    `<!doctype html><html lang="${escapeHtml(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
      `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title>` +
      `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1a1a1a}` +
      `button{font:inherit;padding:.6rem 1.2rem;border-radius:.5rem;border:0;background:#1a1a1a;color:#fff;cursor:pointer}` +
      `button:focus-visible{outline:3px solid #005bd3;outline-offset:2px}</style></head>` +
      `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`,
    status,
    { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer", "X-Robots-Tag": "noindex" },
  );
}

/** The browser's language among the emails' (the pages of a link that names none). */
const negotiateLanguage = (header: string | undefined) =>
  negotiateLocale(header ?? "en", ["en", "fr", "de", "es"], "en");

const wantsHtml = (c: Context) => (c.req.header("accept") ?? "").includes("text/html");

function invalidLink(c: Context) {
  if (wantsHtml(c)) {
    const words = alertPageWords(negotiateLanguage(c.req.header("accept-language")));
    return page(
      c,
      400,
      words.lang,
      words.t("page.invalid.title"),
      `<p>${escapeHtml(words.t("page.invalid.body"))}</p>`,
    );
  }
  throw new AppError("alert-link-invalid", { detail: "The alert email link's signature does not verify." });
}

/** Calls of one unsubscribe link a minute at most (each POST writes). */
const UNSUBSCRIBE_CALLS_PER_MINUTE = 20;
let unsubscribeLimiter: RateLimiterRedis | undefined;

/** Counts a call of the link (by its digest: the key names no customer); 429 past the limit. */
async function limitUnsubscribe(token: string) {
  unsubscribeLimiter ??= new RateLimiterRedis({
    storeClient: getRateLimitRedis(),
    keyPrefix: rateLimitPrefix("alert-unsubscribe"),
    points: UNSUBSCRIBE_CALLS_PER_MINUTE,
    duration: 60,
    insuranceLimiter: new RateLimiterMemory({ points: UNSUBSCRIBE_CALLS_PER_MINUTE, duration: 60 }),
  });
  await whenRedisReady(getRateLimitRedis(), 1_000).catch(() => undefined);
  try {
    await unsubscribeLimiter.consume(createHash("sha256").update(token).digest("base64url").slice(0, 22));
  } catch (refusal) {
    if (!(refusal instanceof RateLimiterRes)) throw refusal;
    const seconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
    throw new AppError("rate-limited", {
      detail: `This link was followed more than ${UNSUBSCRIBE_CALLS_PER_MINUTE} times a minute. Retry in ${seconds} s.`,
      headers: { "Retry-After": String(seconds) },
    });
  }
}

export function registerAlertLinks(app: Hono<HttpAppEnv>) {
  app.post("/flow/lifecycle", async (c) => {
    const rawBody = await c.req.text();
    const expected = createHmac("sha256", getEnv().SHOPIFY_API_SECRET).update(rawBody).digest();
    const given = Buffer.from(c.req.header("x-shopify-hmac-sha256") ?? "", "base64");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new AppError("unauthorized", { detail: "The callback's X-Shopify-Hmac-Sha256 does not verify." });
    }
    let json: unknown;
    try {
      json = JSON.parse(rawBody);
    } catch {
      throw new AppError("malformed-json", { detail: "The callback body is not JSON." });
    }
    const parsed = lifecycleBody.safeParse(json);
    if (!parsed.success) {
      throw new AppError("bad-request", { detail: "The body is not a Flow trigger lifecycle callback." });
    }
    // A callback dated ahead would make every genuine one after it look older: a few minutes of clock skew at most.
    if (Date.parse(parsed.data.timestamp) > Date.now() + 5 * 60_000) {
      throw new AppError("bad-request", { detail: "`timestamp` is in the future." });
    }
    const trigger = triggerOf(parsed.data.flow_trigger_definition_id);
    if (!trigger) throw new AppError("not-found", { detail: "The callback names no trigger of this app." });
    const domain = shopDomain(parsed.data.shopify_domain);
    if (!domain) throw new AppError("bad-request", { detail: "`shopify_domain` is not a shop domain." });
    const outcome = await applyFlowLifecycle({
      trigger,
      enabled: parsed.data.has_enabled_flow,
      shopDomain: domain,
      signedAt: new Date(parsed.data.timestamp),
    });
    return c.json(outcome, 200);
  });

  /** The page's words with `{shopName}` as escaped text, and the link back to the shop. */
  const shopText = (text: string, name: string) => escapeHtml(text).replace("\u0000", () => escapeHtml(name));
  const backLink = (words: ReturnType<typeof alertPageWords>, shop: { name: string; url: string } | null) =>
    shop
      ? `<p><a href="${escapeHtml(shop.url)}">${shopText(words.t("page.backToShop", { shopName: "\u0000" }), shop.name)}</a></p>`
      : "";
  const unsubscribed = (
    c: Context,
    words: ReturnType<typeof alertPageWords>,
    shop: { name: string; url: string } | null,
  ) =>
    page(
      c,
      200,
      words.lang,
      words.t("page.unsubscribed.title"),
      `<p>${shopText(words.t("page.unsubscribed.body", { shopName: "\u0000" }), shop?.name ?? "")}</p>${backLink(words, shop)}`,
    );

  app.get("/alerts/unsubscribe/:token", async (c) => {
    const claims = readUnsubscribeToken(c.req.param("token"));
    if (!claims) return invalidLink(c);
    await limitUnsubscribe(c.req.param("token"));
    const words = alertPageWords(claims.l ?? "en");
    const shop = await unsubscribePageFacts(claims.s, claims.c);
    // Opened again after unsubscribing: it says so, rather than offering the button again.
    if (!shop || shop.unsubscribed) return unsubscribed(c, words, shop);
    return page(
      c,
      200,
      words.lang,
      words.t("page.unsubscribe.title"),
      `<p>${shopText(words.t("page.unsubscribe.body", { shopName: "\u0000" }), shop.name)}</p>` +
        `<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">` +
        `<button type="submit">${escapeHtml(words.t("page.unsubscribe.button"))}</button></form>${backLink(words, shop)}`,
    );
  });

  app.post("/alerts/unsubscribe/:token", async (c) => {
    const claims = readUnsubscribeToken(c.req.param("token"));
    if (!claims) return invalidLink(c);
    await limitUnsubscribe(c.req.param("token"));
    // A shop erased since the email was sent holds nothing to unsubscribe from: the answer is the same.
    await unsubscribeCustomer(claims.s, claims.c);
    return unsubscribed(c, alertPageWords(claims.l ?? "en"), await unsubscribePageFacts(claims.s, claims.c));
  });

  app.get("/proxy/alerts/click/:token", async (c) => {
    const { shop } = await verifyAppProxyRequest(c.req.raw);
    const claims = readClickToken(c.req.param("token"));
    if (!claims || claims.s !== shop.id) return invalidLink(c);
    const alert = await findAlertOfMessage(database(), shop.id, { alertId: claims.a, messageId: claims.m });
    if (alert) await markClicked(database(), shop.id, alert.id, new Date());
    // Relative: the platform's proxy answers on the shop's own domain, so the product page is the shop's.
    return c.redirect(`/products/${encodeURIComponent(claims.h)}`, 302);
  });

  // Another method on these paths is answered here (405, or OPTIONS's 204 with `Allow`), not handed on to
  // the admin's router, which knows none of them.
  for (const [path, allowed] of [
    ["/flow/lifecycle", ["POST"]],
    ["/alerts/unsubscribe/:token", ["GET", "HEAD", "POST"]],
    ["/proxy/alerts/click/:token", ["GET", "HEAD"]],
  ] as const) {
    app.all(path, (c) => {
      if (c.req.method === "OPTIONS") return c.body(null, 204, { Allow: [...allowed, "OPTIONS"].join(", ") });
      throw methodNotAllowed(c.req.method, [...allowed]);
    });
  }
}
