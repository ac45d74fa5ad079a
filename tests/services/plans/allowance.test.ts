import { describe, expect, it } from "vitest";
import type { MailboxMessage } from "../../../stand-in/mailbox";

/**
 * The plans' monthly allowance of alert emails (docs/decisions/062-plans-and-billing.md), against a real SMTP
 * server (the stand-in's mailbox), the platform stand-in answering the recipients' query, and the real worker:
 * at the boundary, however many senders run at once, exactly the allowance is sent; the rest wait for the next
 * month, none lost; an upgrade sends them at once, none twice; the merchant is told once.
 */
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  ALERT_SEND_LEASE_MS: "30000",
  ALERT_RETRY_BASE_MS: "500",
});

const { startAlertStack } = await import("../../support/alert-stack");
const { app, platform, mailbox, alertShop } = await startAlertStack();
const { database } = await import("~/data/database.server");
const { insertAlerts, insertMessages } = await import("~/data/alert-rows.server");
const { setAllowanceUsed } = await import("~/data/plan-rows.server");
const { newId } = await import("~/lib/ids");
const { runAlertSender } = await import("~/services/alerts/sender.server");
const { allowanceUsage, shopPlan } = await import("~/services/plans/entitlements.server");
const { ALLOWANCE_HELD_NOTE, PLANS, periodEnd, periodOf } = await import("~/services/plans/plans");
const { useWorker } = await import("../../support/worker");
const { platformWebhook } = await import("../../support/platform-webhooks");
const { platformSays } = await import("../../support/subscriptions");
const { until } = await import("../../support/poll");
const { BASE_URL } = await import("../../support/http");

useWorker({ SHOPIFY_ADMIN_API_ORIGIN: platform.origin });

const TOTE = { productId: "8100000008", variantId: "9100000008", handle: "pebble-canvas-tote" };
const SHOPPERS = 100;
const ROOM = 10;

type AlertShop = Awaited<ReturnType<typeof alertShop>>;

/**
 * Consenting customers of the shop (their addresses `<label>-<id>+<shop>@example.com`), each with the tote saved
 * and one back-in-stock email due now; returns when they were made due.
 */
async function dueAlertEmails(s: AlertShop, customers: string[], label: string): Promise<Date> {
  for (const id of customers) {
    s.data.customers.push({
      id,
      email: `${label}-${id}+${s.shop.id.slice(-6)}@example.com`,
      firstName: `Shopper ${id}`,
      lastName: "Test",
      marketingState: "SUBSCRIBED",
    });
    await s.save(id, TOTE);
  }
  const at = new Date();
  const messages = customers.map((customerId) => ({
    id: newId("alertMessage"),
    shopId: s.shop.id,
    customerId,
    dueAt: at,
    createdAt: at,
  }));
  await insertMessages(database(), messages);
  await insertAlerts(
    database(),
    messages.map((message, n) => ({
      id: newId("alert"),
      shopId: s.shop.id,
      customerId: message.customerId,
      listId: "list_any",
      itemId: `item_${label}_${n}`,
      productId: TOTE.productId,
      variantId: TOTE.variantId,
      kind: "back_in_stock",
      currency: "USD",
      changeKey: `restock-${label}-${n}`,
      messageId: message.id,
      createdAt: at,
    })),
  );
  return at;
}

describe("the monthly allowance of alert emails", () => {
  it("sends exactly the allowance with 100 messages due and five senders at once; the rest wait, none lost; an upgrade sends them, none twice", async () => {
    const s = await alertShop();
    // A hundred consenting customers, each with the tote saved and an alert email due now.
    const customers = Array.from({ length: SHOPPERS }, (_, n) => String(7_500 + n));
    const at = await dueAlertEmails(s, customers, "shopper");
    // The Free plan's allowance, all but ROOM used this month.
    const limit = PLANS.FREE.allowances.alert_emails;
    await setAllowanceUsed(
      database(),
      { shopId: s.shop.id, period: periodOf(at), allowance: "alert_emails" },
      limit - ROOM,
    );

    const mine = (message: MailboxMessage) => message.to.some((to) => to.includes(`+${s.shop.id.slice(-6)}@`));
    // Five senders at once (the worker's own may join): each claims its share and takes units concurrently.
    await Promise.all(Array.from({ length: 5 }, () => runAlertSender({ shopId: s.shop.id })));
    const settled = await until(
      async () =>
        database()
          .selectFrom("AlertMessage")
          .select(["id", "state", "dueAt", "error"])
          .where("shopId", "=", s.shop.id)
          .execute(),
      (rows) =>
        rows.length === SHOPPERS &&
        rows.every((row) => row.state === "sent" || (row.state === "pending" && row.error === ALLOWANCE_HELD_NOTE)),
      "every message sent or held",
    );
    expect(settled.filter((row) => row.state === "sent")).toHaveLength(ROOM);
    const held = settled.filter((row) => row.state === "pending");
    expect(held).toHaveLength(SHOPPERS - ROOM);
    // Held until the next month starts.
    expect(new Set(held.map((row) => new Date(row.dueAt).toISOString()))).toEqual(
      new Set([periodEnd(at).toISOString()]),
    );
    await until(
      async () => mailbox.messages().filter(mine).length,
      (count) => count === ROOM,
      "the allowance's emails in the mailbox",
    );
    const [usage] = await allowanceUsage(s.shop.id);
    expect(usage).toMatchObject({ used: limit, limit });
    expect(usage!.reachedAt).not.toBeNull();
    // The merchant is told once.
    const told = await database()
      .selectFrom("Event")
      .select(["type", "data"])
      .where("shopId", "=", s.shop.id)
      .where("type", "=", "plan.allowance_reached")
      .execute();
    expect(told).toHaveLength(1);
    expect(JSON.parse(told[0]!.data)).toEqual({
      allowance: "alert_emails",
      limit,
      plan: "FREE",
      period: periodOf(at),
      resetsAt: periodEnd(at).toISOString(),
    });
    // Another run sends nothing more this month.
    const again = await runAlertSender({ shopId: s.shop.id });
    expect(again.sent).toBe(0);
    expect(mailbox.messages().filter(mine)).toHaveLength(ROOM);

    // The merchant upgrades: the platform's webhook makes the plan Growth, and the held emails go at once.
    const body = JSON.stringify({
      app_subscription: {
        admin_graphql_api_id: "gid://shopify/AppSubscription/4100",
        name: "Growth",
        status: "ACTIVE",
        admin_graphql_api_shop_id: "gid://shopify/Shop/1",
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
        currency: "USD",
      },
    });
    // The platform holds the approved subscription (the app asks it before it believes the webhook).
    await platformSays(platform, s.shop.domain, {
      id: "gid://shopify/AppSubscription/4100",
      name: "Growth",
      status: "ACTIVE",
    });
    const upgraded = await app.request(
      `${BASE_URL}/webhooks/app_subscriptions/update`,
      platformWebhook("app_subscriptions/update", s.shop.domain, body),
    );
    expect(upgraded.status).toBe(200);
    expect((await shopPlan(s.shop.id)).plan.id).toBe("GROWTH");
    await until(
      async () => mailbox.messages().filter(mine),
      (received) => received.length === SHOPPERS,
      "every email sent after the upgrade",
      120_000,
    );
    // Each customer once.
    const recipients = mailbox
      .messages()
      .filter(mine)
      .flatMap((message) => message.to);
    expect(new Set(recipients).size).toBe(SHOPPERS);
    const [after] = await allowanceUsage(s.shop.id);
    expect(after).toMatchObject({ used: limit + SHOPPERS - ROOM, limit: PLANS.GROWTH.allowances.alert_emails });
  });

  it("gives back the unit of an email the mail server did not take, and sends it once when it is back, within the allowance", async () => {
    // GIVEN a shop with 2 emails of the month's allowance left and 4 due, and its mail server down
    const s = await alertShop();
    const customers = Array.from({ length: 4 }, (_, n) => String(7_700 + n));
    const at = await dueAlertEmails(s, customers, "down");
    const limit = PLANS.FREE.allowances.alert_emails;
    await setAllowanceUsed(
      database(),
      { shopId: s.shop.id, period: periodOf(at), allowance: "alert_emails" },
      limit - 2,
    );
    const mine = (message: MailboxMessage) => message.to.some((to) => to.includes(`+${s.shop.id.slice(-6)}@`));
    mailbox.down(true);
    try {
      // WHEN a run meets the server down
      const run = await runAlertSender({ shopId: s.shop.id });
      expect(run.sent).toBe(0);
      // THEN every unit it took is given back: none counted for emails not sent
      expect((await allowanceUsage(s.shop.id))[0]).toMatchObject({ used: limit - 2 });
    } finally {
      mailbox.down(false);
    }
    // WHEN the server is back (the worker's retries)
    const settled = await until(
      async () =>
        database().selectFrom("AlertMessage").select(["state", "error"]).where("shopId", "=", s.shop.id).execute(),
      (rows) =>
        rows.filter((row) => row.state === "sent").length === 2 &&
        rows.filter((row) => row.state === "pending" && row.error === ALLOWANCE_HELD_NOTE).length === 2,
      "two sent, two held",
      120_000,
    );
    // THEN the allowance's two went, each once, and the other two wait for next month
    expect(settled).toHaveLength(4);
    expect(mailbox.messages().filter(mine)).toHaveLength(2);
    expect((await allowanceUsage(s.shop.id))[0]).toMatchObject({ used: limit });
  });
});
