import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MailboxMessage } from "../../stand-in/mailbox";

/**
 * Attacks on issue 29's changes to the wishlist alerts (the sender's renderer that fills in each recipient,
 * the pipelined sender, the paged evaluation, the worker's 160 MB old space), against the real app and the
 * real worker process, as tests/security/alerts-attacks.test.ts does.
 *
 * Those named "FINDING" fail on the code as reviewed (ee49ef7): each is a hole, and passes once it is closed.
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

const { startAlertStack } = await import("../support/alert-stack");
const { platform, mailbox, alertShop } = await startAlertStack({ mailHost: MAIL_HOST });

const { database, transaction } = await import("~/data/database.server");
const { insertAlerts, insertMessages } = await import("~/data/alert-rows.server");
const { newId } = await import("~/lib/ids");
const { closeSmtpTransports } = await import("~/services/alerts/smtp.server");
const { wakeAlertSender } = await import("~/services/alerts/sender.server");
const { createAlertEmailRenderer, renderAlertEmail } = await import("~/services/alerts/email-template");
const { importItems } = await import("~/services/wishlists/wishlists.server");
const { listName } = await import("~/services/wishlists/named-lists.server");
const { startProcess } = await import("../support/processes");

afterAll(() => closeSmtpTransports());

const TOTE = { productId: "8100000008", variantId: "9100000008", handle: "pebble-canvas-tote" };
const ADA = "7001";
const to = (address: string) => (message: MailboxMessage) => message.to.includes(address);

/** One message of the customer, due now, carrying a price drop of each of these products. */
async function seedDigest(shopId: string, customerId: string, productIds: string[]) {
  const at = new Date();
  const messageId = newId("alertMessage");
  await insertMessages(database(), [{ id: messageId, shopId, customerId, dueAt: at, createdAt: at }]);
  const items = await database()
    .selectFrom("Item")
    .innerJoin("List", "List.id", "Item.listId")
    .select(["Item.id", "Item.listId", "Item.productId"])
    .where("Item.shopId", "=", shopId)
    .where("List.customerId", "=", customerId)
    .where("Item.productId", "in", productIds)
    .execute();
  for (let start = 0; start < items.length; start += 500) {
    await insertAlerts(
      database(),
      items.slice(start, start + 500).map((item) => ({
        id: newId("alert"),
        shopId,
        customerId,
        listId: item.listId,
        itemId: item.id,
        productId: item.productId,
        variantId: "",
        kind: "price_dropped",
        oldPriceMinor: 2_000,
        newPriceMinor: 1_500,
        quantity: 20,
        currency: "USD",
        changeKey: newId("event"),
        messageId,
        flowState: null,
        webhookEvent: false,
        createdAt: at,
      })),
    );
  }
  return messageId;
}

describe("the sender's renderer", () => {
  // The first name is the platform's customer record: whatever the shopper typed at checkout.
  it("FINDING: fills in a first name holding a NUL or a lone surrogate as the whole render shows it", async () => {
    const renderer = createAlertEmailRenderer();
    const emailOf = (customerFirstName: string) => ({
      locale: "en",
      shopName: "Demo Shop",
      shopUrl: "https://demo.example/",
      customerFirstName,
      unsubscribeUrl: "https://app.example/alerts/unsubscribe/x",
      items: [
        {
          kind: "back_in_stock" as const,
          title: "Tote",
          variantTitle: null,
          imageUrl: null,
          productUrl: "https://demo.example/apps/service/alerts/click/y",
          currency: "USD",
          oldPriceMinor: null,
          newPriceMinor: 7_800,
          quantity: null,
        },
      ],
    });
    const whole = await renderAlertEmail(emailOf("Ada\u0000<b>"));
    // React's renderer drops the NUL: the whole render greets "Ada<b>".
    expect(whole.text).toContain("Hello Ada<b>,");
    expect(await renderer.render(emailOf("Ada\u0000<b>"))).toEqual(whole);
    // A lone surrogate comes out of React's stream as U+FFFD.
    expect(await renderer.render(emailOf("Ada\ud800"))).toEqual(await renderAlertEmail(emailOf("Ada\ud800")));
  });
});

describe("with the worker (160 MB old space)", () => {
  let worker: ReturnType<typeof startProcess>;
  beforeAll(async () => {
    worker = startProcess("worker/index.ts", { SHOPIFY_ADMIN_API_ORIGIN: platform.origin });
    await worker.waitForOutput(/worker ready/, 90_000);
  });
  afterAll(async () => {
    await worker.stop();
  });

  // One shopper keeps the lists and items the shop allows by default (20 lists of MAX_ITEMS_PER_LIST, 500):
  // 10,000 products. A shop-wide sale within the digest window puts a price drop of each in one email: the
  // evaluation joins every alert to the customer's open message, with no bound on how many it carries.
  it("FINDING: sends one shopper's 10,000-product digest without the worker running out of memory, and another shop's email after it", async () => {
    const attacker = await alertShop();
    const victim = await alertShop();
    const productIds = Array.from({ length: 10_000 }, (_, n) => String(8_200_000_000 + n));
    const rows = productIds.map((productId, n) => ({
      customerId: ADA,
      productId,
      handle: `product-${n}`,
      title: `Product number ${n} of the shop's whole catalogue`,
      addedAt: new Date(),
      // The default list and 19 named ones: 20 lists, the default maxListsPerOwner.
      ...(n < 500 ? {} : { list: listName(`List ${Math.floor(n / 500)}`) }),
    }));
    const { inserted, full, redirected } = await transaction((tx) =>
      importItems(tx, {
        shopId: attacker.shop.id,
        rows,
        settings: { multipleLists: true, maxListsPerOwner: 20 },
      }),
    );
    // Within every cap: nothing refused, nothing redirected.
    expect({ inserted: inserted.length, full: full.length, redirected }).toEqual({
      inserted: 10_000,
      full: 0,
      redirected: 0,
    });
    const digest = await seedDigest(attacker.shop.id, ADA, productIds);
    await wakeAlertSender(attacker.shop.id, null);

    // The other shop's customer saved the tote and is owed an email just after.
    await victim.save(ADA, TOTE);
    await seedDigest(victim.shop.id, ADA, [TOTE.productId]);
    await wakeAlertSender(victim.shop.id, null);

    // The worker's end, or both the digest sent and the other shop's email received (the two shops' senders
    // run in either order), within two and a half minutes.
    const started = Date.now();
    const exited = () => worker.child.exitCode ?? worker.child.signalCode;
    const digestState = async () =>
      (await database().selectFrom("AlertMessage").select("state").where("id", "=", digest).executeTakeFirstOrThrow())
        .state;
    while (
      Date.now() - started < 150_000 &&
      exited() === null &&
      !(mailbox.messages().some(to(victim.emailOf(ADA))) && (await digestState()) === "sent")
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const delivered = { exited: exited() };
    const state = { state: await digestState() };
    expect(
      {
        exited: delivered.exited,
        outOfMemory: /heap out of memory/i.test(worker.output()),
        digest: state.state,
        victim: mailbox.messages().filter(to(victim.emailOf(ADA))).length,
      },
      worker.output().slice(-2_000),
    ).toEqual({ exited: null, outOfMemory: false, digest: "sent", victim: 1 });
  });
});
