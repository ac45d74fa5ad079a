import { describe, expect, it } from "vitest";
import { demoShopData } from "../../stand-in/demo-data";

/**
 * Issue 29: `kill -9` of the real worker in the middle of sending the alert emails of 5,000 customers who
 * saved one product that comes back in stock. Another worker takes the shop's sender up once the claim lapses
 * (docs/decisions/050-wishlist-alerts.md). Every customer gets the email (no loss, counted by what the SMTP
 * server received), and none twice: a message can be repeated only if the kill fell between the server's
 * answer and the commit that records it, and then it carries the same Message-ID, which the count uses.
 */
const CUSTOMERS = 5_000;
Object.assign(process.env, {
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  ALERT_GATHER_MS: "0",
  ALERT_SEND_LEASE_MS: "3000",
  WORKER_LOCK_DURATION_MS: "5000",
});
const { startAlertStack } = await import("../support/alert-stack");
const { platform, mailbox } = await startAlertStack({ keep: CUSTOMERS * 2 });

const { database } = await import("~/data/database.server");
const { updateAlertSettingsText } = await import("~/data/shop-rows.server");
const { newId } = await import("~/lib/ids");
const { alertSettingsSchema } = await import("~/services/alerts/alert-settings");
const { requestAlertRefresh } = await import("~/services/alerts/refresh.server");
const { createShopWithKey, setShopPlan } = await import("../factories");
const { connectToPlatform } = await import("../services/transfers/helpers");
const { manualWorkers } = await import("../support/worker");
const { killChild } = await import("../support/processes");
const { until } = await import("../support/poll");

const workers = manualWorkers();

const TOTE = { productId: "8100000008", variantId: "9100000008", handle: "pebble-canvas-tote" };

describe("a worker killed while sending alert emails", () => {
  it("leaves no customer without the email and none with two", async () => {
    // GIVEN 5,000 customers who saved the sold-out tote, all consenting to email marketing
    const { shop } = await createShopWithKey();
    // On Plus: its 50,000 alert emails a month cover the 5,000 (Free's 200 would hold the rest for next month).
    await setShopPlan(shop.id, "PLUS");
    const token = `shpat_${shop.id.slice(-8)}`;
    await connectToPlatform(shop.domain, token);
    const data = demoShopData({ domain: shop.domain, accessToken: token });
    const ids = Array.from({ length: CUSTOMERS }, (_, index) => String(9_000_000 + index));
    data.customers = ids.map((id) => ({
      id,
      email: `c${id}@example.com`,
      firstName: `C${id}`,
      lastName: "Shopper",
      locale: "en",
      marketingState: "SUBSCRIBED",
    }));
    platform.shops.push(data);
    const at = new Date();
    for (let start = 0; start < CUSTOMERS; start += 500) {
      const lists = ids.slice(start, start + 500).map((customerId) => ({
        id: newId("list"),
        shopId: shop.id,
        customerId,
        createdAt: at,
        updatedAt: at,
      }));
      await database().insertInto("List").values(lists).execute();
      await database()
        .insertInto("Item")
        .values(
          lists.map((list) => ({
            id: newId("item"),
            listId: list.id,
            ownerKey: `c:${list.customerId}`,
            shopId: shop.id,
            productId: TOTE.productId,
            variantId: "",
            handle: TOTE.handle,
            titleSnapshot: "Pebble Canvas Tote",
            addedAt: at,
          })),
        )
        .execute();
    }
    const settings = alertSettingsSchema.parse({
      email: {
        enabled: true,
        fromName: "Demo Shop",
        fromAddress: "wishlist@demo-shop.example",
        ratePerMinute: 10_000,
        smtp: { host: "127.0.0.1", port: mailbox.port, security: "none" },
      },
    });
    await updateAlertSettingsText(database(), shop.id, JSON.stringify(settings), new Date());
    const first = await workers.start();
    await requestAlertRefresh(shop.id, [TOTE.productId]);
    await until(
      () => database().selectFrom("ProductRefresh").select("productId").where("shopId", "=", shop.id).execute(),
      (waiting) => waiting.length === 0,
      "the first reading",
    );

    // WHEN the tote is restocked, and the worker is killed once a tenth of the emails went out
    const sent = await platform.updateVariant(shop.domain, TOTE.variantId, { inventoryQuantity: 20 });
    expect(sent.map((webhook) => webhook.status)).toEqual([200, 200]);
    await until(
      () => mailbox.received(),
      (count) => count >= CUSTOMERS / 10,
      "a tenth of the emails",
      180_000,
    );
    await killChild(first.child, { group: true });
    const atKill = mailbox.received();
    expect(atKill).toBeLessThan(CUSTOMERS); // killed in the middle, not after
    await workers.start();

    // THEN every message is recorded sent, and the server received each customer's email once
    await until(
      () =>
        database()
          .selectFrom("AlertMessage")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("shopId", "=", shop.id)
          .where("state", "=", "sent")
          .executeTakeFirstOrThrow(),
      (row) => Number(row.n) === CUSTOMERS,
      "every message sent",
      300_000,
    );
    const ours = mailbox
      .messages()
      .filter((message) => message.to[0]?.endsWith("@example.com") && /^c9/.test(message.to[0]));
    const recipients = new Set(ours.map((message) => message.to[0]));
    const messageIds = new Set(ours.map((message) => message.messageId));
    expect(recipients.size).toBe(CUSTOMERS);
    expect(messageIds.size).toBe(CUSTOMERS);
    // A repeat is only possible for the messages in flight at the kill (4 at most), and is the same message.
    const repeats = ours.length - CUSTOMERS;
    expect(repeats).toBeGreaterThanOrEqual(0);
    expect(repeats).toBeLessThanOrEqual(4);
    const alerts = await database()
      .selectFrom("Alert")
      .select(["customerId", "messageId"])
      .where("shopId", "=", shop.id)
      .execute();
    expect(alerts).toHaveLength(CUSTOMERS);
    expect(new Set(alerts.map((alert) => alert.customerId)).size).toBe(CUSTOMERS);
    process.stdout.write(`alerts kill test: ${atKill} received at the kill, ${repeats} repeated after it\n`);
  });
});
