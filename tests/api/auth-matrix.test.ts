import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { findApiKeysOfShop } from "~/data/api-key-rows.server";
import { insertComplianceRequest } from "~/data/compliance-rows.server";
import { database } from "~/data/database.server";
import { getEnv, resetEnvCache } from "~/env.server";
import { insertTransferJob } from "~/data/transfer-job-rows.server";
import { newId } from "~/lib/ids";
import { createApiKey, revokeApiKey } from "~/services/keys/api-keys.server";
import type { Owner } from "~/services/owners/owner";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createList as createNamedList } from "~/services/wishlists/named-lists.server";
import { addItem } from "~/services/wishlists/wishlists.server";
import { getStorage } from "~/services/storage/index.server";
import { startExport } from "~/services/transfers/jobs.server";
import { createUpload } from "~/services/transfers/uploads.server";
import { createDelivery, createList, createShopWithKey, createWebhookEndpoint, setShopPlan } from "../factories";
import { signCustomerAccountToken } from "../../stand-in/customer-account-token";
import { signedProxyPath } from "../support/openapi-client";
import { BASE_URL } from "../support/http";
import { apiHarness } from "../support/harness";

// Every mode of every row starts an import or an export for the one shop, and no worker runs: the
// open-jobs limit (tests/services/transfers/fairness.test.ts) would refuse them after the fifth.
process.env.TRANSFER_OPEN_JOBS_PER_SHOP = "100";
resetEnvCache();

const { app, call } = await apiHarness();
const { shop, secret } = await createShopWithKey();
// On a plan with every feature, so each operation answers its success status (tests/api/plans.test.ts: Free's 403).
await setShopPlan(shop.id, "PLUS");
await updateShopSettings({ shopId: shop.id, patch: { multipleLists: true } });

const GUEST = "6f1c2c1e-3a5b-4c7d-8e9f-0a1b2c3d4e5f";

/** The customer the customer account session token names (signed as the platform signs it). */
const ACCOUNT_CUSTOMER = "53";
const accountToken = (secret = getEnv().SHOPIFY_API_SECRET) =>
  signCustomerAccountToken({
    shopDomain: shop.domain,
    customerId: ACCOUNT_CUSTOMER,
    apiKey: getEnv().SHOPIFY_API_KEY,
    apiSecret: secret,
  });

/** The shopper each mode names (withOwner, proxyPath): their lists are the ones its calls reach. */
function ownerOf(mode: Mode): Owner {
  if (mode === "public") return { kind: "anonymous", anonymousId: GUEST };
  if (mode.startsWith("customer account")) return { kind: "customer", customerId: ACCOUNT_CUSTOMER };
  return { kind: "customer", customerId: mode.startsWith("proxy") ? "42" : "31" };
}

/** Storefront operations the customer account page has no use for: its session token is refused there (403). */
const NOT_FOR_ACCOUNT_PAGE = new Set([
  "GET /storefront/config",
  "GET /storefront/lists/{shareToken}",
  "POST /storefront/identify",
]);

/** A new named list of the mode's shopper. */
async function namedList(mode: Mode): Promise<string> {
  const list = await createNamedList({ shopId: shop.id, owner: ownerOf(mode), name: `List ${randomUUID()}` });
  return list.id;
}

/** A new item of the mode's shopper, on their default list. */
async function savedItem(mode: Mode): Promise<string> {
  const { item } = await addItem({
    shopId: shop.id,
    owner: ownerOf(mode),
    item: { productId: String(Math.floor(Math.random() * 1e9)), handle: "matrix" },
  });
  return item.id;
}

/** Where each move call (by its path) copies its item to. */
const moveTargets = new Map<string, string>();
const revoked = await createApiKey({ shopId: shop.id, label: "revoked" });
await revokeApiKey({ shopId: shop.id, keyId: revoked.key.id });

interface Endpoint {
  name: string;
  method: string;
  /** Storefront endpoints accept every mode; the rest are private only. */
  storefront?: boolean;
  /** Builds the path (fresh ids per call, so a DELETE never meets an already deleted key), for the mode's shopper. */
  path: (mode: Mode) => Promise<string>;
  body?: unknown;
  /** The body, when it depends on what `path` made. */
  bodyOf?: (path: string) => unknown;
  /** Status with a valid private key. */
  ok: number;
  /** Status with the public key when it differs from `ok` (identify: customers only). */
  publicStatus?: number;
  headers?: Record<string, string>;
}

const uploaded = await createUpload({ shopId: shop.id, baseUrl: BASE_URL, filename: "a.csv", contentType: "text/csv" });
await getStorage().write(uploaded.upload.storageKey, Readable.from(["customer_id\n"]), "text/csv");

const endpoints: Endpoint[] = [
  { name: "GET /shop", method: "GET", path: async () => "/shop", ok: 200 },
  // No platform session for this shop: the private key passes auth and meets 409 platform-not-connected.
  { name: "GET /shop/embed-status", method: "GET", path: async () => "/shop/embed-status", ok: 409 },
  {
    name: "PATCH /shop/settings",
    method: "PATCH",
    path: async () => "/shop/settings",
    body: { shareEnabled: true },
    ok: 200,
  },
  { name: "GET /keys", method: "GET", path: async () => "/keys", ok: 200 },
  { name: "POST /keys", method: "POST", path: async () => "/keys", body: { label: "matrix" }, ok: 201 },
  {
    name: "DELETE /keys/{id}",
    method: "DELETE",
    path: async () => `/keys/${(await createApiKey({ shopId: shop.id, label: "to revoke" })).key.id}`,
    ok: 204,
  },
  { name: "GET /lists", method: "GET", path: async () => "/lists", ok: 200 },
  { name: "GET /lists/{id}", method: "GET", path: async () => `/lists/${(await createList(shop.id)).id}`, ok: 200 },
  { name: "GET /analytics/top-products", method: "GET", path: async () => "/analytics/top-products?range=7d", ok: 200 },
  { name: "GET /analytics/activity", method: "GET", path: async () => "/analytics/activity", ok: 200 },
  {
    name: "GET /analytics/conversions",
    method: "GET",
    path: async () => "/analytics/conversions?range=7d",
    ok: 200,
  },
  { name: "GET /analytics/demand", method: "GET", path: async () => "/analytics/demand", ok: 200 },
  { name: "GET /conversions", method: "GET", path: async () => "/conversions?limit=10", ok: 200 },
  { name: "GET /webhooks", method: "GET", path: async () => "/webhooks", ok: 200 },
  {
    name: "POST /webhooks",
    method: "POST",
    path: async () => "/webhooks",
    body: { url: "https://receiver.example/matrix", events: ["item.added"] },
    ok: 201,
  },
  {
    name: "DELETE /webhooks/{id}",
    method: "DELETE",
    path: async () => `/webhooks/${(await createWebhookEndpoint(shop.id)).endpoint.id}`,
    ok: 204,
  },
  {
    name: "POST /webhooks/{id}/test",
    method: "POST",
    path: async () => `/webhooks/${(await createWebhookEndpoint(shop.id)).endpoint.id}/test`,
    ok: 202,
  },
  {
    name: "POST /webhooks/{id}/enable",
    method: "POST",
    path: async () => `/webhooks/${(await createWebhookEndpoint(shop.id)).endpoint.id}/enable`,
    ok: 200,
  },
  {
    name: "GET /webhooks/{id}/deliveries",
    method: "GET",
    path: async () => `/webhooks/${(await createWebhookEndpoint(shop.id)).endpoint.id}/deliveries`,
    ok: 200,
  },
  {
    name: "POST /webhooks/{id}/deliveries/{deliveryId}/redeliver",
    method: "POST",
    path: async () => {
      const { endpoint } = await createWebhookEndpoint(shop.id);
      const delivery = await createDelivery(shop.id, endpoint.id);
      return `/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`;
    },
    ok: 202,
  },
  { name: "GET /exports", method: "GET", path: async () => "/exports", ok: 200 },
  { name: "POST /exports", method: "POST", path: async () => "/exports", body: { format: "csv" }, ok: 202 },
  {
    name: "GET /exports/{jobId}",
    method: "GET",
    path: async () => `/exports/${(await startExport({ shopId: shop.id, format: "csv" })).id}`,
    ok: 200,
  },
  { name: "GET /compliance/data-requests", method: "GET", path: async () => "/compliance/data-requests", ok: 200 },
  {
    name: "GET /compliance/data-requests/{requestId}",
    method: "GET",
    path: async () => {
      const row = await insertComplianceRequest(
        database(),
        { id: newId("complianceRequest"), shopId: shop.id, topic: "customers/data_request", customerId: "1" },
        new Date(),
      );
      return `/compliance/data-requests/${row.id}`;
    },
    ok: 200,
  },
  { name: "GET /imports", method: "GET", path: async () => "/imports", ok: 200 },
  {
    name: "POST /imports/upload",
    method: "POST",
    path: async () => "/imports/upload",
    body: { filename: "a.csv", contentType: "text/csv" },
    ok: 201,
  },
  {
    name: "GET /imports/uploads/{uploadId}",
    method: "GET",
    path: async () => `/imports/uploads/${uploaded.upload.id}`,
    ok: 200,
  },
  {
    name: "POST /imports",
    method: "POST",
    path: async () => "/imports",
    body: { source: "csv", fileUrl: uploaded.fileUrl, dryRun: true },
    ok: 202,
  },
  {
    name: "GET /imports/{jobId}",
    method: "GET",
    path: async () => {
      const job = await insertTransferJob(
        database(),
        { id: `job_${Date.now()}${Math.floor(Math.random() * 1e6)}`, shopId: shop.id, kind: "import", source: "csv" },
        new Date(),
      );
      return `/imports/${job.id}`;
    },
    ok: 200,
  },
  {
    name: "GET /storefront/config",
    method: "GET",
    storefront: true,
    path: async () => "/storefront/config",
    headers: { "Accept-Language": "en" },
    ok: 200,
  },
  // Storefront: the owner is named per mode (private: customerId; public: anonymous id; proxy: signed customer).
  {
    name: "GET /storefront/wishlist",
    method: "GET",
    storefront: true,
    path: async () => "/storefront/wishlist",
    ok: 200,
  },
  {
    name: "POST /storefront/wishlist/toggle",
    method: "POST",
    storefront: true,
    path: async () => "/storefront/wishlist/toggle",
    body: { productId: "1", handle: "one" },
    ok: 200,
  },
  {
    name: "POST /storefront/wishlist/items",
    method: "POST",
    storefront: true,
    path: async () => "/storefront/wishlist/items",
    body: { productId: "2", handle: "two" },
    ok: 201,
  },
  {
    name: "DELETE /storefront/wishlist/items",
    method: "DELETE",
    storefront: true,
    path: async () => "/storefront/wishlist/items",
    body: { productId: "2" },
    ok: 204,
  },
  {
    name: "POST /storefront/wishlist/share",
    method: "POST",
    storefront: true,
    path: async () => "/storefront/wishlist/share",
    ok: 200,
  },
  {
    name: "DELETE /storefront/wishlist/share",
    method: "DELETE",
    storefront: true,
    path: async () => "/storefront/wishlist/share",
    ok: 204,
  },
  {
    name: "GET /storefront/lists/{shareToken}",
    method: "GET",
    storefront: true,
    path: async () => {
      const list = await createList(shop.id);
      const token = `tok${list.id.slice(4)}`;
      await database()
        .updateTable("List")
        .set({ shareToken: token, shareEnabled: true })
        .where("id", "=", list.id)
        .execute();
      return `/storefront/lists/${token}`;
    },
    ok: 200,
  },
  {
    name: "POST /storefront/identify",
    method: "POST",
    storefront: true,
    path: async () => "/storefront/identify",
    body: { anonymousId: "0b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11" },
    ok: 200,
    publicStatus: 403,
  },
  // Named lists (issue 28): each call reaches a list or item of the mode's shopper.
  {
    name: "GET /storefront/wishlists",
    method: "GET",
    storefront: true,
    path: async () => "/storefront/wishlists",
    ok: 200,
  },
  {
    name: "POST /storefront/wishlists",
    method: "POST",
    storefront: true,
    path: async () => "/storefront/wishlists",
    bodyOf: () => ({ name: `New ${randomUUID()}` }),
    ok: 201,
  },
  {
    name: "GET /storefront/wishlists/{listId}",
    method: "GET",
    storefront: true,
    path: async (mode) => `/storefront/wishlists/${await namedList(mode)}`,
    ok: 200,
  },
  {
    name: "PATCH /storefront/wishlists/{listId}",
    method: "PATCH",
    storefront: true,
    path: async (mode) => `/storefront/wishlists/${await namedList(mode)}`,
    bodyOf: () => ({ name: `Renamed ${randomUUID()}` }),
    ok: 200,
  },
  {
    name: "DELETE /storefront/wishlists/{listId}",
    method: "DELETE",
    storefront: true,
    path: async (mode) => `/storefront/wishlists/${await namedList(mode)}`,
    ok: 204,
  },
  {
    name: "POST /storefront/wishlists/{listId}/share",
    method: "POST",
    storefront: true,
    path: async (mode) => `/storefront/wishlists/${await namedList(mode)}/share`,
    ok: 200,
  },
  {
    name: "DELETE /storefront/wishlists/{listId}/share",
    method: "DELETE",
    storefront: true,
    path: async (mode) => `/storefront/wishlists/${await namedList(mode)}/share`,
    ok: 204,
  },
  {
    name: "PATCH /storefront/wishlist/items/{itemId}",
    method: "PATCH",
    storefront: true,
    path: async (mode) => `/storefront/wishlist/items/${await savedItem(mode)}`,
    body: { quantity: 2 },
    ok: 200,
  },
  {
    name: "POST /storefront/wishlist/items/{itemId}/move",
    method: "POST",
    storefront: true,
    path: async (mode) => {
      const path = `/storefront/wishlist/items/${await savedItem(mode)}/move`;
      moveTargets.set(path, await namedList(mode));
      return path;
    },
    bodyOf: (path) => ({ listId: moveTargets.get(path), copy: true }),
    ok: 201,
  },
];

/** Adds the owner a storefront call needs in each mode; other endpoints are left as they are. */
function withOwner(mode: Mode, endpoint: Endpoint, path: string) {
  const body = endpoint.bodyOf ? endpoint.bodyOf(path) : endpoint.body;
  if (!endpoint.storefront || path.startsWith("/storefront/lists/") || path === "/storefront/config") {
    return { path, body };
  }
  const owner =
    mode === "private" || mode === "revoked" ? { customerId: "31" } : mode === "public" ? { anonymousId: GUEST } : {};
  if (endpoint.method === "POST" && body !== undefined) {
    // identify carries the guest's anonymousId already; the owner is the customer.
    const named = path.endsWith("/identify") && "anonymousId" in owner ? {} : owner;
    return { path, body: { ...(body as object), ...named } };
  }
  const query =
    "customerId" in owner ? `customerId=${owner.customerId}` : "anonymousId" in owner ? `aid=${owner.anonymousId}` : "";
  return { path: query ? `${path}?${query}` : path, body };
}

type Mode =
  | "none"
  | "private"
  | "revoked"
  | "public"
  | "proxy signed"
  | "proxy tampered"
  | "customer account"
  | "customer account forged";

async function request(mode: Mode, endpoint: Endpoint, basePath: string) {
  const { path, body } = withOwner(mode, endpoint, basePath);
  const headers: Record<string, string> = {
    ...endpoint.headers,
    ...(body ? { "Content-Type": "application/json" } : {}),
  };
  const init = { method: endpoint.method, headers, body: body ? JSON.stringify(body) : undefined };
  switch (mode) {
    case "none":
      return call(`/v1${path}`, init);
    case "private":
      return call(`/v1${path}`, {
        ...init,
        headers: { ...headers, Authorization: `Bearer ${secret}` },
      });
    case "revoked":
      return call(`/v1${path}`, {
        ...init,
        headers: { ...headers, Authorization: `Bearer ${revoked.secret}` },
      });
    case "public":
      return call(`/v1${path}`, {
        ...init,
        headers: { ...headers, "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey },
      });
    case "proxy signed":
      return call(proxyPath(path), init);
    case "proxy tampered": {
      const signed = proxyPath(path);
      return call(signed.replace("logged_in_customer_id=42", "logged_in_customer_id=43"), init);
    }
    case "customer account":
      return call(`/v1${path}`, { ...init, headers: { ...headers, Authorization: `Bearer ${await accountToken()}` } });
    case "customer account forged":
      return call(`/v1${path}`, {
        ...init,
        headers: { ...headers, Authorization: `Bearer ${await accountToken("not-the-app-secret")}` },
      });
  }
}

/** The signed proxy URL: the path's own query (if any) goes into the signed parameters. */
function proxyPath(path: string) {
  const [pathname, query = ""] = path.split("?");
  const params = Object.fromEntries(new URLSearchParams(query));
  return signedProxyPath(`/proxy/v1${pathname}`, { shop: shop.domain, logged_in_customer_id: "42", ...params });
}

const expected: Record<Mode, (endpoint: Endpoint) => number> = {
  none: () => 401,
  private: (endpoint) => endpoint.ok,
  revoked: () => 401,
  // Public keys and the app proxy reach storefront endpoints only.
  public: (endpoint) => (endpoint.storefront ? (endpoint.publicStatus ?? endpoint.ok) : 403),
  "proxy signed": (endpoint) => (endpoint.storefront ? endpoint.ok : 403),
  "proxy tampered": () => 401,
  // The customer account page's token: the storefront operations on the customer's own lists and items only.
  "customer account": (endpoint) =>
    endpoint.storefront && !NOT_FOR_ACCOUNT_PAGE.has(endpoint.name) ? endpoint.ok : 403,
  "customer account forged": () => 401,
};

const cases = endpoints.flatMap((endpoint) =>
  (Object.keys(expected) as Mode[]).map((mode) => ({ endpoint, mode, status: expected[mode](endpoint) })),
);

describe("calling modes x endpoints", () => {
  it.each(cases)("$endpoint.name with $mode -> $status", async ({ endpoint, mode, status }) => {
    const response = await request(mode, endpoint, await endpoint.path(mode));
    expect(response.status).toBe(status);
    if (status >= 400) {
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      const problem = await response.json();
      expect(problem.type).toBe(
        `http://localhost:3000/problems/${{ 401: "unauthorized", 403: "forbidden", 409: "platform-not-connected" }[status]}`,
      );
    }
  });

  it("covers every operation of the OpenAPI document", async () => {
    const document = (await (await app.request(`${BASE_URL}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => ["get", "post", "put", "patch", "delete"].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(endpoints.map((endpoint) => endpoint.name).sort()).toEqual(documented.sort());
  });

  it("keeps private keys hashed and counts the matrix's key creations", async () => {
    const keys = await findApiKeysOfShop(database(), shop.id);
    expect(keys.every((key) => /^[0-9a-f]{64}$/.test(key.hash))).toBe(true);
    expect(keys.some((key) => key.label === "matrix")).toBe(true);
  });
});
