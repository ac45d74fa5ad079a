import { randomUUID } from "node:crypto";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { resetEnvCache } from "~/env.server";
import { createShopWithKey } from "../../factories";
import { rawCall, signedProxyPath } from "../../support/openapi-client";
import { BASE_URL } from "../../support/http";
import { useWorker } from "../../support/worker";
import { startReceiver } from "./receiver";
import { apiHarness } from "../../support/harness";

// Plain http to a receiver on loopback, as in the local demo; the timing is the production one.
Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  OUTBOX_RELAY_INTERVAL_MS: "20",
});
resetEnvCache();

const { app, validator, clientFor } = await apiHarness();
/** The document the app serves: its `webhooks` section documents each event's POST body. */
const document = (await (await app.request(`${BASE_URL}/openapi.json`)).json()) as {
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: object }> } } }>;
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema(document, "openapi");
const schemaOf = (type: string) =>
  ajv.compile({ $ref: `openapi#/webhooks/${type}/post/requestBody/content/application~1json/schema` });

/** ISO 8601 in UTC with milliseconds and `Z`, as documented for every timestamp. */
const MILLISECOND_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

useWorker();

describe("delivered event envelopes match the documented schemas", () => {
  it("item.added, item.removed, list.merged, list.shared and ping, as the real worker sends them", async () => {
    const receiver = await startReceiver();
    try {
      const { shop, secret } = await createShopWithKey();
      const api = clientFor(secret);
      const types = ["item.added", "item.removed", "list.merged", "list.shared"] as const;
      const endpoint = await api.POST("/webhooks", { body: { url: receiver.url, events: [...types] } });
      expect(endpoint.response.status).toBe(201);

      const aid = randomUUID();
      const guest = { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey };
      const json = { "Content-Type": "application/json" };
      const asGuest = (path: string, body?: unknown) =>
        rawCall(app, validator, `/v1${path}`, {
          method: "POST",
          headers: body === undefined ? guest : { ...guest, ...json },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const asCustomer = (path: string, body: unknown) =>
        rawCall(
          app,
          validator,
          signedProxyPath(`/proxy/v1${path}`, { shop: shop.domain, logged_in_customer_id: "500" }),
          {
            method: "POST",
            headers: json,
            body: JSON.stringify(body),
          },
        );

      const calls = [
        await asGuest("/storefront/wishlist/toggle", { productId: "1", handle: "one", anonymousId: aid }),
        await asGuest(`/storefront/wishlist/share?aid=${aid}`),
        await asCustomer("/storefront/wishlist/toggle", { productId: "2", handle: "two", variantId: "20" }),
        await asCustomer("/storefront/identify", { anonymousId: aid }),
        await asCustomer("/storefront/wishlist/toggle", { productId: "2", handle: "two", variantId: "20" }),
        await api.POST("/webhooks/{id}/test", { params: { path: { id: endpoint.data!.id } } }).then((r) => r.response),
      ];
      expect(calls.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 202]);

      // guest added, shared; customer added; merged; customer removed; ping.
      const received = await receiver.waitFor(6, 90_000);
      const bodies = received.map((request) => {
        const body = JSON.parse(request.body.toString("utf8"));
        expect(request.headers["x-service-event"]).toBe(body.type);
        expect(request.headers["x-service-delivery"]).toMatch(/^dlv_[A-Za-z0-9]+$/);
        return body;
      });
      expect(new Set(bodies.map((body) => body.type))).toEqual(new Set([...types, "ping"]));

      for (const body of bodies) {
        const validate = schemaOf(body.type);
        expect(validate(body), `${body.type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        expect(body.id).toMatch(/^evt_[A-Za-z0-9]+$/);
        expect(body.createdAt).toMatch(MILLISECOND_UTC);
        expect(body.shopDomain).toBe(shop.domain);
        expect(Object.keys(body)).toEqual(["id", "type", "shopDomain", "createdAt", "data"]);
        // Nothing undocumented: every member of `data` (and of its item) is in the schema.
        const schemaName = (
          document.webhooks[body.type]!.post.requestBody.content["application/json"]!.schema as {
            $ref: string;
          }
        ).$ref
          .split("/")
          .pop()!;
        const dataSchema = document.components.schemas[schemaName]!.properties!.data as {
          properties: Record<string, unknown>;
        };
        for (const member of Object.keys(body.data)) expect(dataSchema.properties, body.type).toHaveProperty(member);
        if (body.data.item) {
          expect(body.data.item.addedAt).toMatch(MILLISECOND_UTC);
          for (const member of Object.keys(body.data.item))
            expect(document.components.schemas.Item!.properties).toHaveProperty(member);
        }
      }
      const ofType = (type: string) => bodies.filter((body) => body.type === type);
      // One of the two owner ids is null in item events.
      expect(
        ofType("item.added")
          .map((body) => [body.data.customerId, body.data.anonymousId])
          .sort(),
      ).toEqual(
        [
          ["500", null],
          [null, aid],
        ].sort(),
      );
      expect(ofType("item.removed")[0]!.data).toMatchObject({ customerId: "500", anonymousId: null, count: 1 });
      expect(ofType("list.merged")[0]!.data).toMatchObject({ customerId: "500", mergedCount: 1 });
      expect(ofType("list.shared")[0]!.data.url).toContain(ofType("list.shared")[0]!.data.shareToken);
      expect(ofType("ping")[0]!.data.endpointId).toBe(endpoint.data!.id);
      expect(new Set(bodies.map((body) => body.id)).size).toBe(bodies.length);
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
