import { createHmac, timingSafeEqual } from "node:crypto";
import type { FrameLocator, Locator, Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { database } from "~/data/database.server";
import { createShopWithKey, createDelivery, createWebhookEndpoint } from "../factories";
import { setEndpointHealth } from "../support/webhook-rows";
import { startReceiver, type Received } from "../services/webhooks/receiver";
import {
  appFrame,
  expectNoPageErrors,
  screenshot,
  seriousAccessibilityViolations,
  useAdminStack,
} from "./support/admin";
import { clickTitleBarAction, clickWhenHydrated, whenHydrated } from "./support/interaction";

// The stack's worker delivers to loopback over plain http, with a retry unit of 50 ms (support/admin.ts).
const stack = useAdminStack();

const receivers: Array<{ close(): Promise<void> }> = [];
afterAll(() => Promise.all(receivers.map((receiver) => receiver.close())));

/** A receiver on loopback answering each request with `status(index)` (200 unless told otherwise). */
async function receiver(status: (index: number) => number = () => 200) {
  const started = await startReceiver((_request, index, res) => {
    const code = status(index);
    res.writeHead(code, { "content-type": "text/plain" }).end(code === 200 ? "ok" : "receiver failed");
  });
  receivers.push(started);
  return started;
}

/** The receiver's side of docs/webhooks.md, written apart from the service: HMAC-SHA256 of `<t>.<raw body>`. */
function signedWith(request: Received, secret: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(request.headers["x-service-signature"] ?? ""));
  if (!match) return false;
  if (Math.abs(Date.now() / 1000 - Number(match[1])) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${match[1]}.`).update(request.body).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, "hex"));
}

const eventOf = (request: Received) =>
  JSON.parse(request.body.toString("utf8")) as { id: string; type: string; data: Record<string, unknown> };

interface ApiEndpoint {
  id: string;
  url: string;
  events: string[];
  disabledAt: string | null;
  failCount: number;
}

async function apiEndpoints(): Promise<ApiEndpoint[]> {
  const response = await stack.api("/webhooks");
  expect(response.status).toBe(200);
  return (await response.json()) as ApiEndpoint[];
}

async function apiAttempts(endpointId: string): Promise<Array<{ attempt: number; statusCode: number | null }>> {
  const response = await stack.api(`/webhooks/${endpointId}/deliveries`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Array<{ attempt: number; statusCode: number | null }> }).data;
}

const adminTime = (iso: string) =>
  `${new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })} UTC`;

const openModal = (app: FrameLocator) => app.locator("dialog.ab-modal[open]");
const modalButton = (app: FrameLocator, label: string) =>
  openModal(app).locator(".ab-modal__footer button", { hasText: label });
const toast = (page: Page, text: string) => page.locator(".admin-toast", { hasText: text });
const row = (app: FrameLocator, text: string) => app.locator("tbody tr", { hasText: text });

/** A delivery log row's cells by column, as read (badges without their visually hidden tone word). */
async function cells(logRow: Locator) {
  const texts = await logRow.locator("td").evaluateAll((tds) =>
    tds.map((td) => {
      const copy = td.cloneNode(true) as HTMLElement;
      copy.querySelectorAll(".Polaris-Text--visuallyHidden").forEach((hidden) => hidden.remove());
      return [...copy.querySelectorAll("span, div")]
        .filter((node) => node.children.length === 0)
        .map((node) => node.textContent?.trim())
        .filter(Boolean)
        .join(" ");
    }),
  );
  const [time, event, attempt, status, code, duration, nextRetry] = texts;
  return { time, event, attempt, status, code, duration, nextRetry };
}

// Each test drives a browser through several page loads and waits on the worker: minutes on a busy machine.
const BROWSER_TEST = { timeout: 180_000 };

describe("the Webhooks page", BROWSER_TEST, () => {
  it("adds an endpoint with two events, shows its signing secret once, and a test ping arrives signed with it", async () => {
    const hooks = await receiver();
    const { context, page, app } = await stack.openAdmin("/webhooks");
    await app.getByText("Send wishlist events to your systems").waitFor({ timeout: 90_000 });

    await clickTitleBarAction(page, app, "Add endpoint");
    await openModal(app).waitFor();
    await app.getByLabel("Endpoint URL").fill(hooks.url);
    await app.getByLabel("item.added").check();
    await app.getByLabel("list.shared").check();
    await modalButton(app, "Add endpoint").click();

    const secretField = app.getByLabel("Signing secret");
    await secretField.waitFor({ timeout: 90_000 });
    const secret = await secretField.inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(await openModal(app).textContent()).toContain("it is shown only this once");
    await screenshot(page, "webhooks-secret-once");
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await openModal(app).getByRole("button", { name: "Copy" }).click();
    await toast(page, "Signing secret copied").waitFor({ timeout: 90_000 });
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const [endpoint, ...others] = await apiEndpoints();
    expect(others).toEqual([]);
    expect(endpoint).toMatchObject({ url: hooks.url, events: ["item.added", "list.shared"], disabledAt: null });
    expect(JSON.stringify(endpoint)).not.toContain(secret);

    // Once: closed, reopened and reloaded, the page never shows it again.
    await modalButton(app, "Done").click();
    await expect.poll(() => openModal(app).count()).toBe(0);
    await clickTitleBarAction(page, app, "Add endpoint");
    await openModal(app).waitFor();
    expect(await app.getByLabel("Endpoint URL").inputValue()).toBe("");
    expect(await app.getByLabel("Signing secret").count()).toBe(0);
    await modalButton(app, "Cancel").click();
    await expect.poll(() => openModal(app).count()).toBe(0);
    await page.reload();
    const listed = row(app, hooks.url);
    await listed.waitFor({ timeout: 90_000 });
    // The events are listed one per line (they wrap in a narrow admin, issue 25 finding 12).
    expect(await listed.innerText()).toMatch(/item\.added\s*\n\s*list\.shared/);
    expect(await listed.textContent()).toContain("Active");
    expect(await app.locator("body").textContent()).not.toContain(secret);

    await clickWhenHydrated(app.getByRole("button", { name: `Send test to ${hooks.url}` }));
    await toast(page, "Test event queued: its attempts show in the delivery log").waitFor({ timeout: 90_000 });
    const [ping] = await hooks.waitFor(1, 90_000);
    expect(ping!.headers["x-service-event"]).toBe("ping");
    expect(signedWith(ping!, secret)).toBe(true);
    expect(signedWith(ping!, "whsec_someone-else")).toBe(false);
    expect(eventOf(ping!)).toMatchObject({ type: "ping", data: { endpointId: endpoint!.id } });

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "webhooks");
    await context.close();
  });

  it("refuses an empty URL, a non-http URL and no events inline, and creates nothing", async () => {
    const before = await apiEndpoints();
    const { context, page, app } = await stack.openAdmin("/webhooks");
    await clickTitleBarAction(page, app, "Add endpoint");
    await openModal(app).waitFor();
    const url = app.getByLabel("Endpoint URL");
    const events = openModal(app).locator("fieldset");

    await modalButton(app, "Add endpoint").click();
    await openModal(app).getByText("must be an absolute URL such as https://example.com/webhooks").waitFor();
    expect(await url.getAttribute("aria-invalid")).toBe("true");
    expect(await events.textContent()).toContain("choose at least one event");

    // Every problem at once: the scheme and the missing events.
    await url.fill("ftp://x");
    await modalButton(app, "Add endpoint").click();
    await openModal(app).getByText("must use http or https").waitFor();
    expect(await events.textContent()).toContain("choose at least one event");
    // Said once, beside the field: no banner repeating it in other words.
    expect(await openModal(app).textContent()).not.toContain("The endpoint was not added");
    await app.getByLabel("item.removed").check();
    await modalButton(app, "Add endpoint").click();
    await expect.poll(() => events.textContent()).not.toContain("choose at least one event");
    await openModal(app).getByText("must use http or https").waitFor();

    await url.fill("http://127.0.0.1:9/hooks");
    await app.getByLabel("item.removed").uncheck();
    await modalButton(app, "Add endpoint").click();
    await expect.poll(() => openModal(app).getByText("must use http or https").count()).toBe(0);
    expect(await events.textContent()).toContain("choose at least one event");
    expect(await app.getByLabel("Signing secret").count()).toBe(0);

    expect(await apiEndpoints()).toEqual(before);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  });

  it("disables an endpoint after 20 failed deliveries in a row; the banner re-enables it", async () => {
    let failing = true;
    const hooks = await receiver(() => (failing ? 500 : 200));
    const { endpoint } = await createWebhookEndpoint(stack.shop.id, hooks.url);
    // 16 deliveries already failed (docs/decisions/024-endpoint-failure-count.md); the last 4 take the real path.
    await setEndpointHealth(database(), stack.shop.id, endpoint.id, { failCount: 16 }, new Date());
    const { context, page, app } = await stack.openAdmin("/webhooks");

    // Each test ping is tried 6 times (1 + 5 retries, about 23 s in all at 50 ms a unit) and counts as a
    // failed delivery when its last retry fails: the fourth ping's last retry switches the endpoint off.
    const sendTest = app.getByRole("button", { name: `Send test to ${hooks.url}` });
    await whenHydrated(sendTest);
    for (let ping = 1; ping <= 4; ping++) {
      await sendTest.click();
      await expect.poll(() => new Set(hooks.received.map((request) => eventOf(request).id)).size).toBe(ping);
    }
    await expect
      .poll(async () => (await apiEndpoints()).find(({ id }) => id === endpoint.id)?.disabledAt ?? null, {
        timeout: 120_000,
      })
      .not.toBeNull();
    const disabled = (await apiEndpoints()).find(({ id }) => id === endpoint.id)!;
    expect(disabled.failCount).toBe(20);
    expect(hooks.received).toHaveLength(24);

    await page.reload();
    const banner = app.getByText("A webhook endpoint is disabled and receives no events");
    await banner.waitFor({ timeout: 90_000 });
    const listed = row(app, hooks.url);
    expect(await listed.textContent()).toContain("Disabled");
    expect(await listed.textContent()).toContain(`since ${adminTime(disabled.disabledAt!)}`);
    expect(await sendTest.isDisabled()).toBe(true);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, "webhooks-disabled-banner");

    failing = false;
    await clickWhenHydrated(app.getByRole("button", { name: `Re-enable ${hooks.url}` }));
    await toast(page, "Endpoint re-enabled").waitFor({ timeout: 90_000 });
    await expect.poll(() => banner.count()).toBe(0);
    await expect.poll(async () => (await listed.textContent())?.includes("Active")).toBe(true);
    expect((await apiEndpoints()).find(({ id }) => id === endpoint.id)).toMatchObject({
      disabledAt: null,
      failCount: 0,
    });

    // Re-enabled means delivered to again.
    const sentBefore = hooks.received.length;
    await sendTest.click();
    await expect.poll(() => hooks.received.length).toBeGreaterThan(sentBefore);
    expect(eventOf(hooks.received.at(-1)!).type).toBe("ping");
    expectNoPageErrors(page);
    await context.close();
  });

  it("fits the endpoints in a 1440 px admin: long URLs and all four events wrap, each Delete is in view", async () => {
    const events = ["item.added", "item.removed", "list.merged", "list.shared"];
    const urls = [
      `https://receiver.example/${"a-rather-long-path-segment/".repeat(5)}hooks`,
      `https://${"sub-".repeat(12)}domain.receiver.example/wishlist/events`,
    ];
    for (const url of urls) {
      const created = await stack.api("/webhooks", { method: "POST", body: JSON.stringify({ url, events }) });
      expect(created.status).toBe(201);
    }
    const { context, page, app } = await stack.openAdmin("/webhooks");
    await page.setViewportSize({ width: 1440, height: 900 });
    for (const url of urls) await app.getByRole("button", { name: `Delete ${url}` }).waitFor({ timeout: 90_000 });
    for (const url of urls) {
      // What hides the button: a box it overflows that scrolls or clips sideways, or the frame's own edge.
      const hiddenBy = await app.getByRole("button", { name: `Delete ${url}` }).evaluate((button) => {
        for (let node = button.parentElement; node; node = node.parentElement) {
          const { overflowX } = getComputedStyle(node);
          if (overflowX !== "visible" && node.scrollWidth > node.clientWidth + 1)
            return `${node.tagName}.${node.className}`;
        }
        return button.getBoundingClientRect().right > document.documentElement.clientWidth ? "the frame's edge" : null;
      });
      expect(hiddenBy, url).toBeNull();
    }
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  });

  it("shows a failed action on its error page with one h1", async () => {
    const { context, page, app } = await stack.openAdmin("/webhooks");
    const frame = await appFrame(page);
    await whenHydrated(app.getByRole("heading", { name: "Webhooks", level: 1 }));
    // A form the action does not know (400): the route's error boundary takes the page.
    await frame.evaluate(() => {
      const body = new FormData();
      body.set("intent", "no-such-form");
      const router = (window as unknown as { __remixRouter: { navigate(to: string, options: object): void } })
        .__remixRouter;
      router.navigate("/app/webhooks?index", { formMethod: "post", formData: body });
    });
    await app.getByRole("alert").first().waitFor({ timeout: 90_000 });
    expect(await app.locator("h1").count()).toBe(1);
    expect(await app.getByRole("alert").first().textContent()).toContain("400 Unknown form");
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page, [/^HTTP 400 POST .*\/app\/webhooks/]);
    await context.close();
  });

  it("asks before deleting an endpoint; deleting removes it", async () => {
    const { endpoint } = await createWebhookEndpoint(stack.shop.id, "https://delete-me.example/hooks");
    const { context, page, app } = await stack.openAdmin("/webhooks");
    const deleteButton = app.getByRole("button", { name: "Delete https://delete-me.example/hooks" });

    await clickWhenHydrated(deleteButton);
    await openModal(app).getByText("https://delete-me.example/hooks").waitFor();
    await modalButton(app, "Cancel").click();
    await expect.poll(() => openModal(app).count()).toBe(0);
    expect((await apiEndpoints()).map(({ id }) => id)).toContain(endpoint.id);

    await deleteButton.click();
    await modalButton(app, "Delete endpoint").click();
    await toast(page, "Endpoint deleted").waitFor({ timeout: 90_000 });
    await expect.poll(() => row(app, "https://delete-me.example/hooks").count()).toBe(0);
    expect((await apiEndpoints()).map(({ id }) => id)).not.toContain(endpoint.id);
    expectNoPageErrors(page);
    await context.close();
  });
});

describe("an endpoint's page", BROWSER_TEST, () => {
  it("logs every attempt with its HTTP code; Redeliver sends the event once more", async () => {
    // The receiver fails the first attempt and accepts everything after it.
    const hooks = await receiver((index) => (index === 0 ? 500 : 200));
    const { endpoint, secret } = await createWebhookEndpoint(stack.shop.id, hooks.url);
    const { context, page, app } = await stack.openAdmin("/webhooks");

    await clickWhenHydrated(app.getByRole("link", { name: hooks.url }));
    await app.getByText("No deliveries yet").waitFor({ timeout: 90_000 });
    await clickWhenHydrated(app.getByRole("button", { name: `Send test to ${hooks.url}` }));
    await toast(page, "Test event queued: its attempts show in the delivery log").waitFor({ timeout: 90_000 });
    const [sent] = await hooks.waitFor(2, 90_000);
    await expect.poll(async () => (await apiAttempts(endpoint.id)).length).toBe(2);

    await clickTitleBarAction(page, app, "Refresh log");
    const rows = app.locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    // Each row names its event by type and id (what receivers deduplicate by).
    const event = `ping ${eventOf(sent!).id}`;
    expect(await cells(rows.nth(0))).toMatchObject({ event, attempt: "2", status: "Succeeded", code: "200" });
    expect(await cells(rows.nth(1))).toMatchObject({
      event,
      attempt: "1",
      status: "Failed HTTP 500",
      code: "500",
      // to the second: under `npm run dev` retries come seconds apart
      nextRetry: expect.stringMatching(/:\d\d:\d\d [AP]M UTC$/),
    });

    await clickWhenHydrated(rows.nth(1).getByRole("button", { name: "Redeliver ping (attempt 1)" }));
    await toast(page, "Redelivery queued").waitFor({ timeout: 90_000 });
    const [first, , again] = await hooks.waitFor(3, 90_000);
    expect(eventOf(again!).id).toBe(eventOf(first!).id);
    expect(again!.headers["x-service-delivery"]).not.toBe(first!.headers["x-service-delivery"]);
    expect(signedWith(again!, secret)).toBe(true);

    await expect.poll(async () => (await apiAttempts(endpoint.id)).length).toBe(3);
    await clickTitleBarAction(page, app, "Refresh log");
    await expect.poll(() => rows.count()).toBe(3);
    expect(await cells(rows.first())).toMatchObject({ event, attempt: "3", status: "Succeeded", code: "200" });

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "webhook-deliveries");
    await context.close();
  });

  it("pages the log with the API's cursors", async () => {
    const { endpoint } = await createWebhookEndpoint(stack.shop.id, "https://paged.example/hooks");
    // Disabled, so the worker sends the seeded events nowhere and the log holds exactly these 30 attempts.
    await setEndpointHealth(database(), stack.shop.id, endpoint.id, { disabledAt: new Date() }, new Date());
    for (let attempt = 0; attempt < 29; attempt++) await createDelivery(stack.shop.id, endpoint.id);
    // The newest attempt had a retry planned when the endpoint was switched off: it will not be sent.
    await createDelivery(stack.shop.id, endpoint.id, { nextRetryAt: new Date(Date.now() + 3_600_000) });
    const { context, page, app } = await stack.openAdmin(`/webhooks/${endpoint.id}`);
    const rows = app.locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(25);
    expect((await cells(rows.first())).nextRetry).toBe("Not sent: endpoint disabled");

    await clickWhenHydrated(app.getByRole("link", { name: "Older attempts" }));
    await expect.poll(() => rows.count()).toBe(5);
    const cursor = new URL((await appFrame(page)).url()).searchParams.get("cursor");
    expect(cursor).toBeTruthy();
    const apiPage = await stack.api(`/webhooks/${endpoint.id}/deliveries?cursor=${encodeURIComponent(cursor!)}`);
    expect(((await apiPage.json()) as { data: unknown[] }).data).toHaveLength(5);

    await app.getByRole("link", { name: "Newest attempts" }).click();
    await expect.poll(() => rows.count()).toBe(25);
    expectNoPageErrors(page);
    await context.close();
  });

  it("has one h1 and fits a 1440 px admin with a 300-character URL, disabled and with a long error logged", async () => {
    const url = `https://receiver.example/${"x".repeat(300 - "https://receiver.example/".length)}`;
    expect(url).toHaveLength(300);
    const { endpoint } = await createWebhookEndpoint(stack.shop.id, url);
    await createDelivery(stack.shop.id, endpoint.id);
    // Disabled: the banner names the endpoint by its URL as well.
    await setEndpointHealth(database(), stack.shop.id, endpoint.id, { disabledAt: new Date() }, new Date());
    const { context, page, app } = await stack.openAdmin(`/webhooks/${endpoint.id}`);
    await page.setViewportSize({ width: 1440, height: 900 });
    await app.getByRole("button", { name: `Re-enable ${url}` }).waitFor({ timeout: 90_000 });
    await app.locator("tbody tr").first().waitFor({ timeout: 90_000 });
    const frame = await appFrame(page);
    expect(await frame.locator("h1").count()).toBe(1);
    const { scrollWidth, clientWidth } = await frame.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  });

  it("shows another shop's endpoint, or an id of another kind, as not found and nothing of it", async () => {
    const other = await createShopWithKey();
    const { endpoint } = await createWebhookEndpoint(other.shop.id, "https://other-shop.example/private-hooks");
    for (const id of [endpoint.id, "lst_01jd2x6c5ef0q8w3d0s8b2n7k4"]) {
      const { context, page, app } = await stack.openAdmin(`/webhooks/${id}`);
      await app.getByText("This webhook endpoint does not exist").waitFor({ timeout: 90_000 });
      expect(await app.locator("body").textContent()).not.toContain("other-shop.example");
      expect(await app.locator("h1").count()).toBe(1);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      expectNoPageErrors(page, [/^HTTP 404 GET .*\/app\/webhooks\//]);
      await context.close();
    }
  });
});
