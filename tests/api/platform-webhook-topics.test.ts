import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { PLATFORM_WEBHOOK_TOPICS, type PlatformWebhookTopic } from "~/services/shops/platform-webhook-topics";

const toml = parse(readFileSync(path.resolve(import.meta.dirname, "../../shopify.app.toml"), "utf8")) as {
  webhooks: { subscriptions: Array<{ topics?: string[]; compliance_topics?: string[]; uri: string }> };
};
const subscriptions = toml.webhooks.subscriptions;
const topics = Object.keys(PLATFORM_WEBHOOK_TOPICS) as PlatformWebhookTopic[];

// The platform sends what shopify.app.toml subscribes to; the route serves what the topic table declares.
describe("shopify.app.toml and the platform webhook topic table", () => {
  it("subscribe to exactly the table's topics, compliance topics under compliance_topics", () => {
    const subscribed = (key: "topics" | "compliance_topics") =>
      subscriptions.flatMap((subscription) => subscription[key] ?? []).sort();
    expect(subscribed("topics")).toEqual(topics.filter((topic) => !PLATFORM_WEBHOOK_TOPICS[topic].compliance).sort());
    expect(subscribed("compliance_topics")).toEqual(
      topics.filter((topic) => PLATFORM_WEBHOOK_TOPICS[topic].compliance).sort(),
    );
  });

  it("send each topic to its route, /webhooks/<topic>", () => {
    for (const subscription of subscriptions) {
      for (const topic of [...(subscription.topics ?? []), ...(subscription.compliance_topics ?? [])]) {
        expect(subscription.uri).toBe(`/webhooks/${topic}`);
      }
    }
  });
});
