import { describe, expect, it } from "vitest";
import { createShopWithKey, createWebhookEndpoint } from "../factories";
import { rawCall } from "../support/openapi-client";
import { apiHarness } from "../support/harness";

const { app, validator } = await apiHarness();
const { shop, secret } = await createShopWithKey();
const auth = { Authorization: `Bearer ${secret}` };
const { endpoint } = await createWebhookEndpoint(shop.id);
const endpointId = endpoint.id;
const json = { ...auth, "Content-Type": "application/json" };

async function problem(path: string, init: RequestInit = {}) {
  const response = await rawCall(app, validator, path, init);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  return { status: response.status, headers: response.headers, body: await response.json() };
}

const type = (slug: string) => `http://localhost:3000/problems/${slug}`;

describe("problems on every error path of /v1", () => {
  it("unknown route: 404 not-found", async () => {
    const { status, body } = await problem("/v1/nothing/here", { headers: auth });
    expect(status).toBe(404);
    expect(body).toMatchObject({ type: type("not-found"), instance: "/v1/nothing/here" });
  });

  it("wrong method: 405 with Allow", async () => {
    const { status, headers, body } = await problem("/v1/keys", { method: "PUT", headers: auth });
    expect(status).toBe(405);
    expect(headers.get("allow")).toBe("GET, POST, OPTIONS");
    expect(body.type).toBe(type("method-not-allowed"));
    expect((await problem("/v1/keys/key_1", { method: "GET", headers: auth })).headers.get("allow")).toBe(
      "DELETE, OPTIONS",
    );
  });

  it("a concrete path is matched before a templated one: GET /imports/upload is a 405, not a job id", async () => {
    // GIVEN /imports/upload (POST) beside /imports/{jobId} (GET)
    // WHEN the concrete path is asked with a method only the templated path has, or one neither has
    const get = await problem("/v1/imports/upload", { headers: auth });
    const remove = await problem("/v1/imports/upload", { method: "DELETE", headers: auth });
    // THEN 405, and Allow names only what /imports/upload serves
    for (const { status, headers, body } of [get, remove]) {
      expect(status).toBe(405);
      expect(body.type).toBe(type("method-not-allowed"));
      expect(headers.get("allow")).toBe("POST, OPTIONS");
    }
    const proxied = await app.request("http://localhost:3000/proxy/v1/imports/upload/");
    expect(proxied.status).toBe(405);
    // A job id is still read as one, and a wrong prefix is still a 400 invalid-id.
    expect((await problem("/v1/imports/job_01jabcdefghjkmnpqrstvwxyz0", { headers: auth })).status).toBe(404);
    expect((await problem("/v1/imports/uploads", { headers: auth })).body.type).toBe(type("invalid-id"));
  });

  it("wrong content type: 415", async () => {
    const { status, body } = await problem("/v1/keys", {
      method: "POST",
      headers: { ...auth, "Content-Type": "text/plain" },
      body: "label=x",
    });
    expect(status).toBe(415);
    expect(body.type).toBe(type("unsupported-media-type"));
  });

  it("a body sent to an operation that declares none meets the body rules, with problems the document lists", async () => {
    // Found by the API fuzz (tests/api/fuzz.test.ts): these answers were right, but undocumented for operations
    // without a request body, so clients generated from the document did not expect them.
    const text = await problem(`/v1/keys/key_01jabcdefghjkmnpqrstvwxyz0`, {
      method: "DELETE",
      headers: { ...auth, "Content-Type": "text/plain" },
      body: "x",
    });
    expect(text.status).toBe(415);
    const nul = await problem(`/v1/webhooks/${endpointId}/test`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ note: "a\u0000b" }),
    });
    expect(nul.status).toBe(422);
    const large = await problem(`/v1/webhooks/${endpointId}`, {
      method: "DELETE",
      headers: json,
      body: JSON.stringify({ note: "a".repeat(300 * 1024) }),
    });
    expect(large.status).toBe(413);
  });

  it("malformed JSON: 400", async () => {
    const { status, body } = await problem("/v1/keys", { method: "POST", headers: json, body: '{"label": ' });
    expect(status).toBe(400);
    expect(body.type).toBe(type("malformed-json"));
  });

  it("validation: 422 with JSON pointers, for missing, wrong and unknown members", async () => {
    const missing = await problem("/v1/keys", { method: "POST", headers: json, body: "{}" });
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ type: type("validation-error"), errors: [{ pointer: "#/label" }] });

    const noBody = await problem("/v1/keys", { method: "POST", headers: auth });
    expect(noBody.status).toBe(422);
    expect(noBody.body.errors).toEqual([expect.objectContaining({ pointer: "#/label" })]);

    const settings = await problem("/v1/shop/settings", {
      method: "PATCH",
      headers: json,
      body: JSON.stringify({
        guestEnabled: "yes",
        headlessOrigins: ["https://ok.example", "https://bad.example/path"],
        colour: "red",
      }),
    });
    expect(settings.status).toBe(422);
    expect(settings.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "#",
      "#/guestEnabled",
      "#/headlessOrigins/1",
    ]);
  });

  it("invalid query parameters: 400 naming the parameter", async () => {
    for (const query of ["limit=0", "limit=101", "limit=abc", "cursor=", "customerId=12a", "customerId=-1"]) {
      const { status, body } = await problem(`/v1/lists?${query}`, { headers: auth });
      expect(status, query).toBe(400);
      expect(body.type).toBe(type("invalid-parameter"));
      expect(body.errors[0].parameter).toBe(query.split("=")[0]);
    }
  });

  it("tampered cursor: 400 invalid-cursor", async () => {
    const { status, body } = await problem("/v1/lists?cursor=eyJhZnRlciI6ImxzdF8xIn0.AAAA", { headers: auth });
    expect(status).toBe(400);
    expect(body.type).toBe(type("invalid-cursor"));
  });

  it("wrong id prefix: 400 invalid-id, not 404", async () => {
    const list = await problem("/v1/lists/itm_01jabc", { headers: auth });
    expect(list.status).toBe(400);
    expect(list.body.type).toBe(type("invalid-id"));
    const key = await problem("/v1/keys/lst_01jabc", { method: "DELETE", headers: auth });
    expect(key.status).toBe(400);
  });

  it("well-formed unknown id: 404", async () => {
    expect((await problem("/v1/lists/lst_01jabcdefghjkmnpqrstvwxyz0", { headers: auth })).status).toBe(404);
    expect((await problem("/v1/keys/key_01jabcdefghjkmnpqrstvwxyz0", { method: "DELETE", headers: auth })).status).toBe(
      404,
    );
  });

  it("bad credentials: 401 with a Bearer challenge, a public key sent as a Bearer token included", async () => {
    const unknown = await problem("/v1/shop", { headers: { Authorization: "Bearer svc_sk_unknown" } });
    expect(unknown.status).toBe(401);
    expect(unknown.body.type).toBe(type("unauthorized"));
    expect(unknown.headers.get("www-authenticate")).toBe('Bearer realm="wishlist-service"');
    const notBearer = await problem("/v1/shop", { headers: { Authorization: "Basic dXNlcjpwYXNz" } });
    expect(notBearer.status).toBe(401);
    // A Bearer token is a private key or nothing: a public key there is no credential at all.
    const publicAsBearer = await problem("/v1/shop", { headers: { Authorization: `Bearer ${shop.publicKey}` } });
    expect(publicAsBearer.status).toBe(401);
    expect(publicAsBearer.body.type).toBe(type("unauthorized"));
  });

  it("a valid public key on a private path: 403 forbidden (the caller is known, the path is not allowed)", async () => {
    const publicKey = { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey };
    for (const path of ["/v1/shop", "/v1/keys", "/v1/lists", "/v1/webhooks", "/v1/exports"]) {
      const { status, body } = await problem(path, { headers: publicKey });
      expect(status, path).toBe(403);
      expect(body.type, path).toBe(type("forbidden"));
    }
    // The same key is fine on a storefront path, so the 403 is about the path, not the key.
    expect((await rawCall(app, validator, "/v1/storefront/config", { headers: publicKey })).status).not.toBe(403);
    const wrongKey = await problem("/v1/shop", {
      headers: { "X-Service-Shop": shop.domain, "X-Service-Public-Key": "svc_pk_not-this-shops" },
    });
    expect(wrongKey.status).toBe(401);
  });

  it("wrong prefix on job and delivery ids: 400 invalid-id naming the parameter, not 404", async () => {
    const cases = [
      { path: "/v1/exports/lst_01jabcdefghjkmnpqrstvwxyz0", parameter: "jobId" },
      { path: "/v1/imports/upl_01jabcdefghjkmnpqrstvwxyz0", parameter: "jobId" },
      { path: "/v1/exports/01jabcdefghjkmnpqrstvwxyz0", parameter: "jobId" },
      { path: "/v1/webhooks/dlv_01jabcdefghjkmnpqrstvwxyz0/deliveries", parameter: "id" },
      {
        path: `/v1/webhooks/${endpointId}/deliveries/evt_01jabcdefghjkmnpqrstvwxyz0/redeliver`,
        parameter: "deliveryId",
        method: "POST",
      },
      { path: `/v1/webhooks/${endpointId}/deliveries/job_01jabc/redeliver`, parameter: "deliveryId", method: "POST" },
    ];
    for (const { path, parameter, method = "GET" } of cases) {
      const { status, body } = await problem(path, { method, headers: auth });
      expect(status, path).toBe(400);
      expect(body.type, path).toBe(type("invalid-id"));
      expect(body.errors, path).toEqual([expect.objectContaining({ parameter })]);
    }
    // Well-formed ids of the right kind that do not exist: 404.
    for (const path of [
      "/v1/exports/job_01jabcdefghjkmnpqrstvwxyz0",
      "/v1/imports/job_01jabcdefghjkmnpqrstvwxyz0",
      "/v1/webhooks/whe_01jabcdefghjkmnpqrstvwxyz0/deliveries",
    ]) {
      expect((await problem(path, { headers: auth })).status, path).toBe(404);
    }
    const redeliver = await problem(`/v1/webhooks/${endpointId}/deliveries/dlv_01jabcdefghjkmnpqrstvwxyz0/redeliver`, {
      method: "POST",
      headers: auth,
    });
    expect(redeliver.status).toBe(404);
  });
});
