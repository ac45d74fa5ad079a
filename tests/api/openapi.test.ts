import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { BASE_URL, createTestApp } from "../support/http";

const app = await createTestApp();

describe("the OpenAPI description", () => {
  it("is served at /openapi.json and /v1/openapi.json and validates as OpenAPI 3.1", async () => {
    const document = await (await app.request(`${BASE_URL}/openapi.json`)).json();
    expect(await (await app.request(`${BASE_URL}/v1/openapi.json`)).json()).toEqual(document);
    expect(document.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(document));
    expect(result).toMatchObject({ valid: true });
  });

  it("describes every endpoint built so far, its security schemes, problem responses and webhook payloads", async () => {
    const document = await (await app.request(`${BASE_URL}/openapi.json`)).json();
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        "GET /shop",
        "GET /shop/embed-status",
        "PATCH /shop/settings",
        "GET /keys",
        "POST /keys",
        "DELETE /keys/{id}",
        "GET /lists",
        "GET /lists/{id}",
        "GET /storefront/wishlist",
        "POST /storefront/wishlist/toggle",
        "POST /storefront/wishlist/items",
        "DELETE /storefront/wishlist/items",
        "POST /storefront/wishlist/share",
        "GET /storefront/lists/{shareToken}",
        "POST /storefront/identify",
        "GET /storefront/config",
        "GET /analytics/top-products",
        "GET /analytics/activity",
        "GET /webhooks",
        "POST /webhooks",
        "DELETE /webhooks/{id}",
        "POST /webhooks/{id}/test",
        "POST /webhooks/{id}/enable",
        "GET /webhooks/{id}/deliveries",
        "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver",
        "POST /exports",
        "GET /exports",
        "GET /exports/{jobId}",
        "POST /imports/upload",
        "GET /imports/uploads/{uploadId}",
        "POST /imports",
        "GET /imports",
        "GET /imports/{jobId}",
      ].sort(),
    );
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(["appProxy", "privateKey", "publicKey"]);
    expect(document.paths["/keys"].post.responses["422"].content["application/problem+json"].schema).toEqual({
      $ref: "#/components/schemas/Problem",
    });
    expect(Object.keys(document.webhooks).sort()).toEqual([
      "item.added",
      "item.removed",
      "list.merged",
      "list.shared",
      "ping",
    ]);
    expect(document.servers).toEqual([{ url: "http://localhost:3000/v1", description: "This deployment" }]);
  });

  it("serves a readable API reference at /docs from local assets only", async () => {
    const page = await app.request(`${BASE_URL}/docs`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('spec-url="/openapi.json"');
    expect(html).toContain('src="/docs/redoc.standalone.js"');
    expect(html).not.toMatch(/https?:\/\//); // no CDN
    const script = await app.request(`${BASE_URL}/docs/redoc.standalone.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});
