import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { database, engine, isUniqueViolation } from "~/data/database.server";
import { deleteProcessedWebhooksBefore, insertProcessedWebhook } from "~/data/platform-webhook-rows.server";

/** PlatformWebhook statements on both engines: one row per processed key, purged by age. */
const webhookRow = (id: string) =>
  database().selectFrom("PlatformWebhook").selectAll().where("id", "=", id).executeTakeFirst();
const newId = (prefix: string) => `${prefix}-${randomBytes(6).toString("hex")}`;

describe(`platform webhook rows (${engine()})`, () => {
  it("records a processed key with its time to the millisecond", async () => {
    const webhook = { id: newId("wh"), topic: "app/uninstalled", shopDomain: "a.myshopify.com" };
    const at = new Date("2026-03-04T05:06:07.008Z");
    await insertProcessedWebhook(database(), webhook, at);
    expect(await webhookRow(webhook.id)).toEqual({ ...webhook, receivedAt: at });
  });

  it("refuses the same key twice; of concurrent inserts exactly one succeeds", async () => {
    const webhook = { id: newId("wh"), topic: "shop/redact", shopDomain: "a.myshopify.com" };
    await insertProcessedWebhook(database(), webhook, new Date());
    const error = await insertProcessedWebhook(database(), webhook, new Date()).catch((thrown: unknown) => thrown);
    expect(isUniqueViolation(error)).toBe(true);

    const raced = { ...webhook, id: newId("race") };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => insertProcessedWebhook(database(), raced, new Date())),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
  });

  it("purges keys received strictly before the time given", async () => {
    const cut = new Date("2020-01-01T00:00:00.500Z");
    const old = { id: newId("old"), topic: "shop/redact", shopDomain: "a.myshopify.com" };
    const atCut = { ...old, id: newId("cut") };
    await insertProcessedWebhook(database(), old, new Date("2020-01-01T00:00:00.499Z"));
    await insertProcessedWebhook(database(), atCut, cut);
    expect(await deleteProcessedWebhooksBefore(database(), cut)).toBeGreaterThanOrEqual(1);
    expect(await webhookRow(old.id)).toBeUndefined();
    expect(await webhookRow(atCut.id)).toBeDefined();
  });
});
