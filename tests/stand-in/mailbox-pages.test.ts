/**
 * The local mailbox in the stand-in's admin: `startPlatformStandIn({ mailbox })` starts the SMTP server, its
 * pages list and show what arrived, and a reader can follow an email's links from the page (the message is
 * shown in a sandboxed frame: its scripts never run, its links open in the whole window on a click).
 */
import nodemailer from "nodemailer";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromiumPath, CHROMIUM_ARGS, PAGE_TIMEOUT_MS } from "../../scripts/lib/chromium";
import { demoShopData } from "../../stand-in/demo-data";
import { startPlatformStandIn, type PlatformStandIn } from "../../stand-in/platform";

let platform: PlatformStandIn;
let productUrl: string;

beforeAll(async () => {
  platform = await startPlatformStandIn({
    appUrl: "http://127.0.0.1:9",
    apiKey: "key",
    apiSecret: "secret",
    appHandle: "wishlist-test",
    scopes: "read_products",
    shops: [demoShopData({ domain: "mail-shop.myshopify.com", accessToken: "shpat_mail" })],
    mailbox: { port: 0 },
  });
  productUrl = `${platform.storefrontOrigin}/products/pebble-canvas-tote`;
  const sender = nodemailer.createTransport({ host: platform.mailbox!.host, port: platform.mailbox!.port });
  await sender.sendMail({
    from: '"Demo Shop" <alerts@demo-shop.example>',
    to: "ada@example.com",
    subject: "Older message",
    text: "First.",
  });
  await sender.sendMail({
    from: '"Demo Shop" <alerts@demo-shop.example>',
    to: "grace@example.com",
    subject: "De retour en stock : Pebble Canvas Tote",
    html: `<!doctype html><html><head><title>Alert</title></head><body>
      <p id="lead">Pebble Canvas Tote est de retour.</p>
      <p><a id="product" href="${productUrl}">Voir le produit</a></p>
      <script>document.body.setAttribute("data-ran", "yes"); top.location = "about:blank";</script>
      </body></html>`,
    text: "Pebble Canvas Tote est de retour.",
    list: { unsubscribe: { url: "http://localhost:3000/unsubscribe?token=abc", comment: "Unsubscribe" } },
    headers: { "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
  });
});
afterAll(() => platform.close());

const get = async (path: string) => {
  const response = await fetch(`${platform.origin}${path}`);
  return { status: response.status, text: await response.text() };
};

describe("the mailbox pages of the stand-in's admin", () => {
  it("list the messages newest first, with From, To, Subject and when", async () => {
    const { status, text } = await get("/mailbox");
    expect(status).toBe(200);
    const subjects = [...text.matchAll(/<a href="\/mailbox\/(\d+)">([^<]*)<\/a>/g)].map((m) => m[2]);
    expect(subjects).toEqual(["De retour en stock : Pebble Canvas Tote", "Older message"]);
    expect(text).toContain("&quot;Demo Shop&quot; &lt;alerts@demo-shop.example&gt;");
    expect(text).toContain("<td>grace@example.com</td>");
    expect(text).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/time>/);
  });

  it("show a message's headers and its HTML in a sandboxed frame that cannot run scripts", async () => {
    const newest = platform.mailbox!.messages().at(-1)!;
    const { status, text } = await get(`/mailbox/${newest.id}`);
    expect(status).toBe(200);
    expect(text).toContain("<code>list-unsubscribe</code>");
    expect(text).toContain("&lt;http://localhost:3000/unsubscribe?token=abc&gt; (Unsubscribe)");
    expect(text).toContain("<code>list-unsubscribe-post</code></th><td><code>List-Unsubscribe=One-Click</code>");
    const frame = /<iframe class="mail-frame" title="Message body" sandbox="([^"]*)" srcdoc="([^"]*)"/.exec(text);
    expect(frame).not.toBeNull();
    expect(frame![1]!.split(" ").sort()).toEqual([
      "allow-popups",
      "allow-popups-to-escape-sandbox",
      "allow-top-navigation-by-user-activation",
    ]);
    expect(frame![2]).toContain("&lt;base target=&quot;_top&quot;&gt;");
    expect(frame![2]).toContain("Pebble Canvas Tote est de retour.");
    expect((await get("/mailbox/999")).status).toBe(404);
  });

  it("answer /mailbox.json for scripts, newest first", async () => {
    const response = await fetch(`${platform.origin}/mailbox.json`);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = (await response.json()) as {
      smtp: unknown;
      received: number;
      messages: Array<Record<string, unknown>>;
    };
    expect(body.smtp).toEqual({ host: "127.0.0.1", port: platform.mailbox!.port });
    expect(body.received).toBe(2);
    expect(body.messages.map((m) => m.subject)).toEqual(["De retour en stock : Pebble Canvas Tote", "Older message"]);
    expect(body.messages[0]).toMatchObject({
      to: ["grace@example.com"],
      headers: expect.objectContaining({ "list-unsubscribe-post": "List-Unsubscribe=One-Click" }),
      html: expect.stringContaining(productUrl),
    });
  });

  it("are linked from the admin's header", async () => {
    const { text } = await get("/store/mail-shop/apps/wishlist-test");
    expect(text).toContain('<a href="/mailbox">Mailbox (2)</a>');
    expect((await get("/store/mail-shop/products/8100000001")).text).toContain('<a href="/mailbox">Mailbox (2)</a>');
  });

  it("let a reader follow an email's link in the browser, while the email's script never runs", async () => {
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(PAGE_TIMEOUT_MS);
      const newest = platform.mailbox!.messages().at(-1)!;
      await page.goto(`${platform.origin}/mailbox/${newest.id}`);
      const frame = page.frameLocator("iframe.mail-frame");
      await expect(frame.locator("#lead").textContent()).resolves.toBe("Pebble Canvas Tote est de retour.");
      expect(await frame.locator("body[data-ran]").count()).toBe(0);
      expect(page.url()).toBe(`${platform.origin}/mailbox/${newest.id}`);
      await Promise.all([page.waitForURL(productUrl), frame.locator("#product").click()]);
      await expect(page.getByRole("heading", { name: "Pebble Canvas Tote" }).count()).resolves.toBe(1);
    } finally {
      await browser.close();
    }
  });
});
