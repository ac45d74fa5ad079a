import { validate } from "@readme/openapi-parser";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
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
        "DELETE /storefront/wishlist/share",
        "GET /storefront/lists/{shareToken}",
        "POST /storefront/identify",
        "GET /storefront/config",
        "GET /storefront/wishlists",
        "POST /storefront/wishlists",
        "GET /storefront/wishlists/{listId}",
        "PATCH /storefront/wishlists/{listId}",
        "DELETE /storefront/wishlists/{listId}",
        "POST /storefront/wishlists/{listId}/share",
        "DELETE /storefront/wishlists/{listId}/share",
        "PATCH /storefront/wishlist/items/{itemId}",
        "POST /storefront/wishlist/items/{itemId}/move",
        "GET /analytics/top-products",
        "GET /analytics/activity",
        "GET /analytics/conversions",
        "GET /analytics/demand",
        "GET /conversions",
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
        "GET /compliance/data-requests",
        "GET /compliance/data-requests/{requestId}",
      ].sort(),
    );
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual([
      "appProxy",
      "customerAccount",
      "privateKey",
      "publicKey",
    ]);
    expect(document.paths["/keys"].post.responses["422"].content["application/problem+json"].schema).toEqual({
      $ref: "#/components/schemas/Problem",
    });
    expect(Object.keys(document.webhooks).sort()).toEqual([
      "alert.back_in_stock",
      "alert.low_stock",
      "alert.price_dropped",
      "item.added",
      "item.removed",
      "item.updated",
      "list.created",
      "list.deleted",
      "list.merged",
      "list.shared",
      "ping",
      "plan.allowance_reached",
      "reminder.due",
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
    const bundle = await script.text();
    expect(bundle.length).toBeGreaterThan(100_000);
    expect(bundle).not.toContain("cdn.redoc.ly"); // the footer's logo included
  });
});

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every `pattern` string anywhere in the document, with the schema object that carries it. */
function collectPatterns(node: Json, found: Array<{ pattern: string; schema: Record<string, Json> }> = []) {
  if (Array.isArray(node)) for (const child of node) collectPatterns(child, found);
  else if (node && typeof node === "object") {
    if (typeof node.pattern === "string") found.push({ pattern: node.pattern, schema: node });
    for (const child of Object.values(node)) collectPatterns(child, found);
  }
  return found;
}

/**
 * One value each pattern must accept and one it must refuse, per distinct pattern of the document. A new
 * pattern needs its examples here: the test fails until it has them.
 */
const PATTERN_EXAMPLES: Array<{ match: string[]; reject: string[] }> = [
  {
    // anonymous id (aid / anonymousId)
    match: [
      "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11",
      "5B0E8BDE-59AD-4F02-9A4D-1D2A5C3E3C11",
      "00000000-0000-0000-0000-000000000000",
      "ffffffff-ffff-ffff-ffff-ffffffffffff",
      "01920000-0000-7000-8000-000000000000",
    ],
    reject: ["not-a-uuid", "00000000-0000-9000-8000-000000000000", "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c1"],
  },
  { match: ["red-hat", "chapeau-rouge"], reject: ["red hat", "a/b", ""] }, // product handle
  { match: ["/pages/wishlist", "/"], reject: ["pages/wishlist", "/a b", "/a?b", "//evil.example", "/\\evil.example"] }, // settings.sharePath
  { match: ["7234567890123", "0"], reject: ["12a", "", "-1", "1e3"] }, // platform ids in responses
  { match: ["123", "18446744073709551615"], reject: ["", "1e3", "0x10", "1".repeat(21)] }, // platform id parameter
  { match: ["itm_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["lst_01jd2x6c5ef0q8w3d0s8b2n7k4", "itm_"] },
  { match: ["lst_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["itm_01jd2x6c5ef0q8w3d0s8b2n7k4", "lst_a-b"] },
  { match: ["evt_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["evt-1", "evt_"] },
  { match: ["dlv_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["evt_01jd2x6c5ef0q8w3d0s8b2n7k4"] },
  { match: ["job_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["job_01jd 2x"] },
  { match: ["key_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["svc_sk_abc"] },
  { match: ["upl_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["upl_"] },
  { match: ["cpl_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["cpl_", "job_01jd2x6c5ef0q8w3d0s8b2n7k4"] }, // compliance request
  { match: ["whe_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["whe_a.b"] },
  { match: ["alr_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["alr_", "evt_01jd2x6c5ef0q8w3d0s8b2n7k4"] }, // alert
  { match: ["cnv_01jd2x6c5ef0q8w3d0s8b2n7k4"], reject: ["cnv_", "alr_01jd2x6c5ef0q8w3d0s8b2n7k4"] }, // conversion
  { match: ["USD", "EUR", "JPY"], reject: ["usd", "US", "EURO"] }, // currency (ISO 4217)
  { match: ["7234567890123", "gid://shopify/Product/7234567890123"], reject: ["gid://shopify/Customer/1", "abc"] },
  { match: ["44", "gid://shopify/ProductVariant/44"], reject: ["gid://shopify/Product/44", "4 4"] },
  { match: ["77", "gid://shopify/Customer/77"], reject: ["gid://shopify/Product/77", "-77"] },
  { match: ["order-2026-11-22-0001", "a"], reject: ["two words", "", "é"] }, // Idempotency-Key
  { match: ["en", "pt-BR", "zh-Hant-TW"], reject: ["EN", "not a locale", "e", "en_US"] }, // settings.strings locale
  { match: ["add", "share.title", "link_copied-2"], reject: ["bad key!", "", "a".repeat(65)] }, // settings.strings key
  { match: ["Gifts", " a "], reject: ["", "   "] }, // a list name: something besides spaces
];

describe("the patterns of the OpenAPI description", () => {
  it("compile as JSON Schema (ECMA-262, unicode) regexes that accept valid and refuse invalid examples", async () => {
    const document = (await (await app.request(`${BASE_URL}/openapi.json`)).json()) as Json;
    const found = collectPatterns(document);
    expect(found.length).toBeGreaterThan(10);
    const distinct = [...new Set(found.map(({ pattern }) => pattern))];
    const unexplained: string[] = [];
    for (const pattern of distinct) {
      const regex = new RegExp(pattern, "u"); // throws on a pattern that is not a valid regex
      // Some example set whose valid values all match and whose invalid values all fail.
      const explained = PATTERN_EXAMPLES.some(
        ({ match, reject }) => match.every((value) => regex.test(value)) && !reject.some((value) => regex.test(value)),
      );
      if (!explained) unexplained.push(pattern);
    }
    expect(unexplained, "patterns without a matching example set (add them to PATTERN_EXAMPLES)").toEqual([]);
    // A schema's own example satisfies its pattern.
    for (const { pattern, schema } of found) {
      if (typeof schema.example === "string") {
        expect(new RegExp(pattern, "u").test(schema.example), `${schema.example} vs ${pattern}`).toBe(true);
      }
    }
  });

  it("lets a generated client send every form of anonymous id the API accepts", async () => {
    const document = await (await app.request(`${BASE_URL}/openapi.json`)).json();
    const aid = document.paths["/storefront/wishlist"].get.parameters.find(
      (parameter: { name: string }) => parameter.name === "aid",
    );
    const pattern = new RegExp(aid.schema.pattern, "u");
    for (const value of ["5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11", "5B0E8BDE-59AD-4F02-9A4D-1D2A5C3E3C11"]) {
      expect(pattern.test(value)).toBe(true);
    }
    expect(aid.schema.pattern).not.toMatch(/\/[a-z]*$/); // no regex flags leaked into the pattern
  });
});

type Operation = {
  parameters?: Array<Record<string, Json>>;
  requestBody?: { content: Record<string, { schema: Record<string, Json> }> };
  responses: Record<string, { headers?: Record<string, Record<string, Json>> }>;
};

describe("what the OpenAPI description declares", () => {
  async function load() {
    const document = await (await app.request(`${BASE_URL}/openapi.json`)).json();
    /** Follows a local `$ref` (`#/components/...`). */
    const resolve = <T>(node: T | { $ref: string }): T => {
      if (node && typeof node === "object" && "$ref" in node) {
        return node.$ref
          .slice(2)
          .split("/")
          .reduce((value: Record<string, unknown>, key) => value[key] as Record<string, unknown>, document) as T;
      }
      return node as T;
    };
    const operations = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(
      ([path, item]) => Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
    );
    return { document, resolve, operations };
  }

  it("the Idempotency-Key header parameter on every POST, and on nothing else", async () => {
    const { resolve, operations } = await load();
    for (const { method, path, operation } of operations) {
      const parameters = (operation.parameters ?? []).map((parameter) => resolve(parameter));
      const key = parameters.find((parameter) => parameter.name === "Idempotency-Key");
      if (method === "post") {
        expect(key, `POST ${path}`).toMatchObject({ in: "header", required: false, schema: { type: "string" } });
      } else {
        expect(key, `${method} ${path}`).toBeUndefined();
      }
    }
  });

  it("the body problems (413, 415, 422) on every operation but GET, whether it declares a body or not", async () => {
    const { operations } = await load();
    for (const { method, path, operation } of operations) {
      const statuses = Object.keys(operation.responses);
      for (const status of ["413", "415", "422"]) {
        if (method === "get") expect(statuses, `${method} ${path}`).not.toContain(status);
        else expect(statuses, `${method} ${path}`).toContain(status);
      }
    }
  });

  it("the response headers: request id, rate limits of the operation's bucket, Retry-After, Idempotent-Replayed", async () => {
    const { resolve, operations } = await load();
    for (const { method, path, operation } of operations) {
      const bucket = path.startsWith("/storefront/") ? "Shopper" : "Shop";
      for (const [status, response] of Object.entries(operation.responses)) {
        const where = `${method.toUpperCase()} ${path} ${status}`;
        const headers = Object.fromEntries(
          Object.entries(response.headers ?? {}).map(([name, header]) => [name, resolve(header)]),
        );
        expect(headers["X-Request-Id"], where).toMatchObject({ required: true, schema: { type: "string" } });
        for (const name of ["Limit", "Remaining", "Reset"]) {
          expect(headers[`X-RateLimit-${name}-${bucket}`], where).toMatchObject({ schema: { type: "integer" } });
        }
        expect(headers.RateLimit, where).toMatchObject({ schema: { type: "string" } });
        expect(headers["RateLimit-Policy"], where).toMatchObject({ schema: { type: "string" } });
        if (status.startsWith("2")) {
          expect(headers[`X-RateLimit-Remaining-${bucket}`]?.required, where).toBe(true);
        }
        if (bucket === "Shopper") {
          // Storefront requests are also counted per client address, when it is known.
          expect(headers["X-RateLimit-Remaining-Address"], where).toMatchObject({ schema: { type: "integer" } });
        }
        if (status === "429") expect(headers["Retry-After"], where).toMatchObject({ required: true });
        if (status === "409" && method === "post") expect(headers["Retry-After"], where).toBeDefined();
        if (method === "post" && Number(status) < 500) {
          expect(headers["Idempotent-Replayed"], where).toMatchObject({ schema: { type: "string", enum: ["true"] } });
        } else {
          expect(headers["Idempotent-Replayed"], where).toBeUndefined();
        }
      }
    }
  });

  it("every Settings field as required, and a customer owner's customerId as a required non-null string", async () => {
    const { document, resolve } = await load();
    const settings = document.components.schemas.Settings;
    expect([...settings.required].sort()).toEqual(
      [
        "guestEnabled",
        "shareEnabled",
        "sharePath",
        "metafieldSyncEnabled",
        "integrationConfigured",
        "strings",
        "headlessOrigins",
        "multipleLists",
        "maxListsPerOwner",
        "boughtItems",
      ].sort(),
    );
    const owner = document.components.schemas.Owner;
    expect(owner.discriminator).toMatchObject({ propertyName: "type" });
    const variants = (owner.oneOf as Array<Record<string, Json>>).map((variant) => resolve(variant)) as Array<{
      properties: Record<string, { type?: unknown; enum?: unknown; const?: unknown; pattern?: string }>;
      required: string[];
    }>;
    const customer = variants.find((variant) => JSON.stringify(variant.properties.type).includes('"customer"'))!;
    expect(customer.required).toEqual(expect.arrayContaining(["type", "customerId"]));
    expect(customer.properties.customerId).toMatchObject({ type: "string", pattern: expect.any(String) });
    const anonymous = variants.find((variant) => JSON.stringify(variant.properties.type).includes('"anonymous"'))!;
    expect(anonymous.properties.customerId).toMatchObject({ type: "null" });
  });

  it("an item's additive `available`, `note`, `quantity` and `purchasedAt`, required, beside the contract's fields", async () => {
    const { document } = await load();
    const item = document.components.schemas.Item;
    expect([...item.required].sort()).toEqual(
      [
        "id",
        "productId",
        "variantId",
        "handle",
        "titleSnapshot",
        "addedAt",
        "available",
        "note",
        "quantity",
        "purchasedAt",
      ].sort(),
    );
    expect(item.properties.note).toMatchObject({ description: expect.stringMatching(/^Additive/) });
    expect(item.properties.quantity).toMatchObject({ type: "integer", minimum: 1, maximum: 99 });
    expect(item.properties.available).toMatchObject({
      type: "boolean",
      description: expect.stringMatching(/^Additive/),
    });
  });

  it("storefront bodies as open (further members allowed), private bodies as closed", async () => {
    const { document, resolve } = await load();
    const body = (path: string, method: string) =>
      resolve(document.paths[path][method].requestBody.content["application/json"].schema) as Record<string, Json>;
    for (const [path, method] of [
      ["/storefront/wishlist/toggle", "post"],
      ["/storefront/wishlist/items", "post"],
      ["/storefront/wishlist/items", "delete"],
      ["/storefront/wishlist/share", "post"],
      ["/storefront/wishlist/share", "delete"],
      ["/storefront/identify", "post"],
    ] as const) {
      expect(body(path, method).additionalProperties, `${method} ${path}`).toBe(true);
    }
    expect(document.paths["/storefront/wishlist/share"].post.requestBody.required).toBe(false);
    expect(document.paths["/storefront/wishlist/share"].delete.requestBody.required).toBe(false);
    expect(document.paths["/storefront/wishlist/items"].delete.requestBody.required).toBe(true);
    expect(body("/shop/settings", "patch").additionalProperties).toBe(false);
  });
});

describe("responses carry the headers the description declares", () => {
  it("on private, storefront and replayed answers", async () => {
    const document = await (await app.request(`${BASE_URL}/openapi.json`)).json();
    const { createShopWithKey } = await import("../factories");
    const { shop, secret } = await createShopWithKey();
    const resolve = (header: Record<string, unknown>) =>
      typeof header.$ref === "string" ? document.components.headers[header.$ref.split("/").pop()!] : header;
    const check = (response: Response, path: string, method: string) => {
      const declared = document.paths[path][method].responses[String(response.status)].headers as Record<
        string,
        Record<string, unknown>
      >;
      for (const [name, header] of Object.entries(declared)) {
        if (resolve(header).required) expect(response.headers.get(name), `${name} on ${method} ${path}`).not.toBeNull();
      }
      for (const name of response.headers.keys()) {
        if (/^(x-ratelimit-|ratelimit|retry-after|idempotent-replayed|x-request-id)/i.test(name)) {
          expect(
            Object.keys(declared).map((key) => key.toLowerCase()),
            `${name} is declared on ${method} ${path} ${response.status}`,
          ).toContain(name);
        }
      }
    };
    const shopResponse = await app.request(`${BASE_URL}/v1/shop`, { headers: { Authorization: `Bearer ${secret}` } });
    expect(shopResponse.status).toBe(200);
    check(shopResponse, "/shop", "get");

    const aid = crypto.randomUUID();
    const storefrontResponse = await app.request(`${BASE_URL}/v1/storefront/wishlist?aid=${aid}`, {
      headers: { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey },
    });
    expect(storefrontResponse.status).toBe(200);
    check(storefrontResponse, "/storefront/wishlist", "get");

    const post = () =>
      app.request(`${BASE_URL}/v1/storefront/wishlist/items`, {
        method: "POST",
        headers: {
          "X-Service-Shop": shop.domain,
          "X-Service-Public-Key": shop.publicKey,
          "Content-Type": "application/json",
          "Idempotency-Key": "save-1",
        },
        body: JSON.stringify({ productId: "1", handle: "one", anonymousId: aid }),
      });
    const first = await post();
    expect(first.status).toBe(201);
    check(first, "/storefront/wishlist/items", "post");
    const replay = await post();
    expect(replay.status).toBe(201);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    check(replay, "/storefront/wishlist/items", "post");
  });
});

const { createShopWithKey } = await import("../factories");
const { shop, secret } = await createShopWithKey();
/** The served document, compiled once for the checks below. */
const document = await (await app.request(`${BASE_URL}/openapi.json`)).json();
const ajv = new Ajv2020({ strict: false });
addFormats.default(ajv);
ajv.addSchema(document, "openapi");

describe("the document says what the server does (issue 25)", () => {
  it("passes an independent linter (Redocly's recommended rules) without a problem", async () => {
    const { createConfig, lintFromString } = await import("@redocly/openapi-core");
    const document = await (await app.request(`${BASE_URL}/openapi.json`)).json();
    const config = await createConfig({
      extends: ["recommended"],
      rules: {
        // The service is not published under a licence, and the document names the deployment it is served by
        // (localhost in tests and development).
        "info-license": "off",
        "no-server-example.com": "off",
      },
    });
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "/openapi.json", config });
    expect(problems.map(({ ruleId, message, location }) => `${ruleId} ${location[0]?.pointer}: ${message}`)).toEqual(
      [],
    );
  });

  const toggleSchema =
    "openapi#/paths/~1storefront~1wishlist~1toggle/post/requestBody/content/application~1json/schema";
  const toggle = (body: Record<string, unknown>) =>
    app.request(`${BASE_URL}/v1/storefront/wishlist/toggle`, {
      method: "POST",
      headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });

  it.each([
    ["productId", "12"],
    ["productId", 12],
    ["productId", "gid://shopify/Product/12"],
    ["productId", Number.MAX_SAFE_INTEGER],
    ["productId", Number.MAX_SAFE_INTEGER + 1],
    ["productId", -1],
    ["productId", 1.5],
    ["productId", null],
    ["productId", true],
    ["productId", "abc"],
    ["variantId", null],
    ["variantId", 5],
    ["variantId", "gid://shopify/ProductVariant/5"],
    ["variantId", "gid://shopify/Product/5"],
    ["variantId", false],
  ])("body id %s = %j: the server takes it exactly when the document does", async (member, value) => {
    const body = { handle: "h", anonymousId: crypto.randomUUID(), productId: "12", [member]: value };
    const documented = ajv.validate(toggleSchema, body);
    const response = await toggle(body);
    if (documented) expect(response.status).toBe(200);
    else {
      expect(response.status).toBe(422);
      const { errors } = await response.json();
      expect(errors.length).toBeGreaterThan(0);
      for (const error of errors) expect(error.pointer).toBe(`#/${member}`);
    }
  });

  const pathIds = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) =>
      (operation.parameters ?? [])
        .filter((parameter) => parameter.in === "path" && parameter.name !== "shareToken")
        .map((parameter) => ({ method, path, name: parameter.name as string, schema: parameter.schema as Json })),
    ),
  );

  it("declares the prefix of every service id in a path", () => {
    expect(pathIds.length).toBeGreaterThan(10);
    for (const { method, path, name, schema } of pathIds) {
      expect(schema, `${method} ${path} ${name}`).toMatchObject({ pattern: expect.stringMatching(/^\^[a-z]+_/) });
    }
  });

  it.each(pathIds)(
    "$method $path: an id off the declared pattern is a 400 invalid-id, one on it is not",
    async ({ method, path, name, schema }) => {
      const pattern = new RegExp((schema as { pattern: string }).pattern, "u");
      const prefix = /^\^([a-z]+_)/.exec((schema as { pattern: string }).pattern)![1]!;
      const call = (value: string) =>
        app.request(`${BASE_URL}/v1${path.replace(`{${name}}`, value).replace(/\{[^}]+\}/g, "x")}`, {
          method: method.toUpperCase(),
          headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
          body: method === "get" ? undefined : "{}",
        });
      const wrong = prefix === "lst_" ? "itm_01jabcdefghjkmnpqrstvwxyz0" : "lst_01jabcdefghjkmnpqrstvwxyz0";
      expect(pattern.test(wrong)).toBe(false);
      const refused = await call(wrong);
      expect(refused.status).toBe(400);
      expect((await refused.json()).type).toBe(`${BASE_URL}/problems/invalid-id`);
      if (!path.replace(`{${name}}`, "").includes("{")) {
        // The only id in the path, well formed: not found (never a 400). A storefront operation called with
        // no shopper answers that first (a 4xx other than invalid-id).
        const right = `${prefix}01jabcdefghjkmnpqrstvwxyz0`;
        expect(pattern.test(right)).toBe(true);
        const answer = await call(right);
        if (path.startsWith("/storefront/")) {
          expect(answer.status).toBeLessThan(500);
          expect((await answer.json()).type).not.toBe(`${BASE_URL}/problems/invalid-id`);
        } else {
          expect(answer.status).toBe(404);
        }
      }
    },
  );

  it("Accept-Language: missing or longer than declared is a 400 naming the header", async () => {
    const config = (value?: string) =>
      app.request(`${BASE_URL}/v1/storefront/config`, {
        headers: {
          "X-Service-Shop": shop.domain,
          "X-Service-Public-Key": shop.publicKey,
          ...(value === undefined ? {} : { "Accept-Language": value }),
        },
      });
    const declared = document.paths["/storefront/config"].get.parameters.find(
      (parameter: { name: string }) => parameter.name === "accept-language",
    );
    expect(declared).toMatchObject({ in: "header", required: true, schema: { maxLength: 500 } });
    for (const value of [undefined, `en,${"x".repeat(500)}`]) {
      const response = await config(value);
      expect(response.status).toBe(400);
      expect((await response.json()).errors).toEqual([{ parameter: "accept-language", detail: expect.any(String) }]);
    }
    expect((await config("en")).status).toBe(200);
  });

  it("the app proxy scheme only where it works: storefront operations marked x-app-proxy, served under /proxy/v1", async () => {
    const { signedProxyPath } = await import("../support/openapi-client");
    const operations = Object.entries(
      document.paths as Record<string, Record<string, Record<string, unknown>>>,
    ).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method, path, operation })));
    for (const { method, path, operation } of operations) {
      expect(JSON.stringify(operation.security), `${method} ${path}`).not.toContain("appProxy");
      expect(operation["x-app-proxy"] === true, `${method} ${path}`).toBe(path.startsWith("/storefront/"));
    }
    const signed = (prefix: string) =>
      signedProxyPath(`${prefix}/storefront/wishlist`, { shop: shop.domain, logged_in_customer_id: "12" });
    expect((await app.request(`${BASE_URL}${signed("/proxy/v1")}`)).status).toBe(200);
    expect((await app.request(`${BASE_URL}${signed("/v1")}`)).status).toBe(401);
  });

  it("settings.strings: a bad key is refused naming the key and its rule, as the document's propertyNames do", async () => {
    const patch = (strings: unknown) =>
      app.request(`${BASE_URL}/v1/shop/settings`, {
        method: "PATCH",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ strings }),
      });
    const patchSchema = "openapi#/components/schemas/Settings/properties/strings";
    for (const [strings, pointer, rule] of [
      [{ "not a locale": { add: "x" } }, "#/strings/not%20a%20locale", /locale codes/],
      [{ en: { "bad key!": "x" } }, "#/strings/en/bad%20key!", /letters, digits/],
    ] as const) {
      expect(ajv.validate(patchSchema, strings)).toBe(false);
      const response = await patch(strings);
      expect(response.status).toBe(422);
      const [error] = (await response.json()).errors;
      expect(error.pointer).toBe(pointer);
      expect(error.detail).toMatch(rule);
      expect(error.detail).not.toMatch(/Invalid key in record/);
    }
    const good = { "pt-BR": { "add.label_1": "Adicionar" } };
    expect(ajv.validate(patchSchema, good)).toBe(true);
    expect((await patch(good)).status).toBe(200);
  });
});
