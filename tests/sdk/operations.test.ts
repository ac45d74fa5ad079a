/**
 * Every operation of the served API document, called through the SDK's typed client against the real web process
 * and worker (issue 31): one journey of a shop's developer, from settings to lists, webhooks, imports, exports and
 * data requests. The client records the document path of each call (openapi-fetch's `schemaPath`), and the last test
 * fails if any operation the server documents was not called, so a new operation joins this file with its call.
 */
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { insertComplianceRequest } from "~/data/compliance-rows.server";
import { database } from "~/data/database.server";
import { newId } from "~/lib/ids";
import { createWishlistClient, paginate, type WishlistClient } from "../../sdk/src/index";
import { createShopWithKey, setShopPlan } from "../factories";
import { until } from "../support/poll";
import { freePort } from "../support/processes";
import { useWebProcess } from "../support/web-process";
import { useWorker } from "../support/worker";
import { startReceiver } from "../services/webhooks/receiver";
import { connectToPlatform } from "../services/transfers/helpers";
import { demoShopData } from "../../stand-in/demo-data";
import { startTestPlatform } from "../support/platform-stand-in";

Object.assign(process.env, {
  WEBHOOK_ALLOW_HTTP: "true",
  WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
  OUTBOX_RELAY_INTERVAL_MS: "50",
});
useWorker();

const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
// The platform's Admin API, which the embed status, the settings' storefront sync and the imports' catalogue read.
const platform = await startTestPlatform(baseUrl);
await useWebProcess({ port });
const receiver = await startReceiver();

afterAll(async () => {
  await receiver.close();
  await platform.close();
});

/** `METHOD /path` of each call any client made, as the document names the operation. */
const called = new Set<string>();

function recording(client: WishlistClient): WishlistClient {
  client.use({
    onRequest({ schemaPath, request }) {
      called.add(`${request.method} ${schemaPath}`);
    },
  });
  return client;
}

const { shop, secret } = await createShopWithKey();
// On a plan with every feature, so every operation answers its success (the demand report is Growth's).
await setShopPlan(shop.id, "PLUS");
const token = `shpat_${shop.id.slice(-8)}`;
await connectToPlatform(shop.domain, token);
platform.shops.push(demoShopData({ domain: shop.domain, accessToken: token }));
const server = recording(createWishlistClient({ baseUrl, privateKey: secret }));
const browser = recording(createWishlistClient({ baseUrl, publicKey: shop.publicKey, shop: shop.domain }));
const aid = randomUUID();
const guest = { params: { query: { aid } } };
const customerId = "7001";
const customer = { params: { query: { customerId } } };

describe("every operation through the SDK", () => {
  it("reads and changes the shop: overview, embed status, settings, keys", async () => {
    expect((await server.GET("/shop")).data?.domain).toBe(shop.domain);
    expect((await server.GET("/shop/embed-status")).response.status).toBe(200);
    const { data: settings } = await server.PATCH("/shop/settings", {
      body: { multipleLists: true, shareEnabled: true, guestEnabled: true },
    });
    expect(settings).toMatchObject({ multipleLists: true, shareEnabled: true, guestEnabled: true });

    const { data: created } = await server.POST("/keys", { body: { label: "CRM sync" } });
    expect(created?.secret).toMatch(/^svc_sk_/);
    expect((await server.GET("/keys")).data?.map((key) => key.label)).toContain("CRM sync");
    expect((await server.DELETE("/keys/{id}", { params: { path: { id: created!.id } } })).response.status).toBe(204);
  });

  it("serves a guest's storefront with the public key, and the customer's with the private key", async () => {
    expect(
      (await browser.GET("/storefront/config", { params: { header: { "accept-language": "en" } } })).data,
    ).toMatchObject({ guestEnabled: true });
    const toggled = await browser.POST("/storefront/wishlist/toggle", {
      ...guest,
      body: { productId: "8100000001", handle: "harbor-coat" },
    });
    expect(toggled.data).toMatchObject({ added: true, count: 1 });
    const added = await browser.POST("/storefront/wishlist/items", {
      ...guest,
      body: { productId: "8100000002", handle: "linen-shirt" },
    });
    expect([200, 201]).toContain(added.response.status);
    const { data: wishlist } = await browser.GET("/storefront/wishlist", guest);
    expect(wishlist?.items.map((item) => item.productId).sort()).toEqual(["8100000001", "8100000002"]);

    const { data: share } = await browser.POST("/storefront/wishlist/share", { ...guest, body: {} });
    expect(share?.enabled).toBe(true);
    const { data: shared } = await browser.GET("/storefront/lists/{shareToken}", {
      params: { path: { shareToken: share!.token } },
    });
    expect(shared?.count).toBe(2);
    expect((await browser.DELETE("/storefront/wishlist/share", { ...guest, body: {} })).response.status).toBe(204);
    await browser.DELETE("/storefront/wishlist/items", { ...guest, body: { productId: "8100000002" } });

    // The guest logs in: the platform tells the server, which merges with the private key.
    const { data: merged } = await server.POST("/storefront/identify", { body: { anonymousId: aid, customerId } });
    expect(merged?.items.map((item) => item.productId)).toEqual(["8100000001"]);

    const { data: gifts } = await server.POST("/storefront/wishlists", { ...customer, body: { name: "Gifts" } });
    const listId = gifts!.id!;
    const renamed = await server.PATCH("/storefront/wishlists/{listId}", {
      params: { path: { listId }, query: { customerId } },
      body: { name: "Birthday gifts" },
    });
    expect(renamed.data?.name).toBe("Birthday gifts");
    const { data: lists } = await server.GET("/storefront/wishlists", customer);
    expect(lists?.data.map((list) => list.name)).toEqual(expect.arrayContaining(["Birthday gifts"]));

    const item = (await server.GET("/storefront/wishlist", customer)).data!.items[0]!;
    const noted = await server.PATCH("/storefront/wishlist/items/{itemId}", {
      params: { path: { itemId: item.id }, query: { customerId } },
      body: { note: "size M", quantity: 2 },
    });
    expect(noted.data).toMatchObject({ note: "size M", quantity: 2 });
    const moved = await server.POST("/storefront/wishlist/items/{itemId}/move", {
      params: { path: { itemId: item.id }, query: { customerId } },
      body: { listId, copy: true },
    });
    expect([200, 201]).toContain(moved.response.status);
    const { data: gift } = await server.GET("/storefront/wishlists/{listId}", {
      params: { path: { listId }, query: { customerId } },
    });
    expect(gift?.items.map((saved) => saved.productId)).toEqual(["8100000001"]);

    const listShare = await server.POST("/storefront/wishlists/{listId}/share", {
      params: { path: { listId }, query: { customerId } },
      body: {},
    });
    expect(listShare.data?.listId).toBe(listId);
    const unshared = await server.DELETE("/storefront/wishlists/{listId}/share", {
      params: { path: { listId }, query: { customerId } },
      body: {},
    });
    expect(unshared.response.status).toBe(204);

    // The back office reads every list of the shop, to the last page.
    const all: string[] = [];
    for await (const list of paginate((cursor) => server.GET("/lists", { params: { query: { cursor, limit: 1 } } }))) {
      all.push(list.id!);
    }
    expect(all).toContain(listId);
    expect((await server.GET("/lists/{id}", { params: { path: { id: listId } } })).data?.count).toBe(1);

    const deleted = await server.DELETE("/storefront/wishlists/{listId}", {
      params: { path: { listId }, query: { customerId } },
      body: {},
    });
    expect(deleted.response.status).toBe(204);
  });

  it("reads the analytics and the conversions", async () => {
    const range = { params: { query: { range: "30d" as const } } };
    expect((await server.GET("/analytics/top-products", range)).response.status).toBe(200);
    expect((await server.GET("/analytics/activity", range)).response.status).toBe(200);
    expect((await server.GET("/analytics/conversions", range)).response.status).toBe(200);
    expect((await server.GET("/analytics/demand", range)).response.status).toBe(200);
    expect((await server.GET("/conversions", range)).data?.data).toEqual([]);
  });

  it("registers a webhook endpoint, tests it, reads and redelivers its delivery", async () => {
    const { data: endpoint } = await server.POST("/webhooks", {
      body: { url: receiver.url, events: ["item.added"] },
    });
    const id = endpoint!.id;
    expect((await server.GET("/webhooks")).data?.map((hook) => hook.id)).toContain(id);
    expect((await server.POST("/webhooks/{id}/test", { params: { path: { id } } })).response.status).toBe(202);
    await receiver.waitFor(1);
    const delivery = await until(
      async () => (await server.GET("/webhooks/{id}/deliveries", { params: { path: { id } } })).data!.data,
      (deliveries) => deliveries.some((one) => one.status === "succeeded"),
      "the test delivery recorded as delivered",
    );
    const redelivered = await server.POST("/webhooks/{id}/deliveries/{deliveryId}/redeliver", {
      params: { path: { id, deliveryId: delivery[0]!.id } },
    });
    expect(redelivered.response.status).toBe(202);
    await receiver.waitFor(2);
    expect((await server.POST("/webhooks/{id}/enable", { params: { path: { id } } })).data?.disabledAt).toBeNull();
    expect((await server.DELETE("/webhooks/{id}", { params: { path: { id } } })).response.status).toBe(204);
  });

  it("exports the lists, and imports a file uploaded to the upload URL", async () => {
    const { data: accepted } = await server.POST("/exports", { body: { format: "csv" } });
    const exported = await until(
      async () => (await server.GET("/exports/{jobId}", { params: { path: { jobId: accepted!.jobId } } })).data!,
      (job) => job.status === "succeeded",
      "the export done",
    );
    expect(exported.jobId).toBe(accepted!.jobId);
    expect((await server.GET("/exports")).data?.data.map((job) => job.jobId)).toContain(accepted!.jobId);

    const { data: upload } = await server.POST("/imports/upload", {
      body: { filename: "wishlists.csv", contentType: "text/csv" },
    });
    const csv =
      "customer_id,anonymous_id,product_id,variant_id,handle,added_at\n7002,,8100000003,,pebble-tote,2026-11-01T10:00:00Z\n";
    const put = await fetch(upload!.uploadUrl, { method: upload!.method, headers: upload!.headers, body: csv });
    expect(put.ok).toBe(true);
    const { data: uploaded } = await server.GET("/imports/uploads/{uploadId}", {
      params: { path: { uploadId: upload!.uploadId } },
    });
    expect(uploaded).toMatchObject({ uploaded: true });
    const { data: started } = await server.POST("/imports", {
      body: { source: "csv", fileUrl: upload!.fileUrl, dryRun: true },
    });
    const dryRun = await until(
      async () => (await server.GET("/imports/{jobId}", { params: { path: { jobId: started!.jobId } } })).data!,
      (job) => job.status === "succeeded" || job.status === "failed",
      "the dry run done",
    );
    expect(dryRun).toMatchObject({ jobId: started!.jobId, dryRun: true, status: "succeeded", imported: 1 });
    expect((await server.GET("/imports")).data?.data.map((job) => job.jobId)).toContain(started!.jobId);
  });

  it("reads the platform's data requests", async () => {
    const request = await insertComplianceRequest(
      database(),
      { id: newId("complianceRequest"), shopId: shop.id, topic: "customers/data_request", customerId },
      new Date(),
    );
    expect((await server.GET("/compliance/data-requests")).data?.data.map((one) => one.id)).toContain(request.id);
    const { data } = await server.GET("/compliance/data-requests/{requestId}", {
      params: { path: { requestId: request.id } },
    });
    expect(data?.id).toBe(request.id);
  });

  it("has called every operation the server documents", async () => {
    const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => ["get", "post", "put", "patch", "delete"].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.length).toBeGreaterThan(40);
    expect([...called].sort()).toEqual(documented.sort());
  });
});
