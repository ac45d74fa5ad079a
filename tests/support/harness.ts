import { apiClient, OpenApiValidator, rawCall, signedProxyPath } from "./openapi-client";
import { createTestApp } from "./http";

/** A call's method, JSON body (or a raw one) and further headers; Content-Type is JSON when there is a body. */
export type CallInit = { method?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> };

export type ApiHarness = Awaited<ReturnType<typeof apiHarness>>;

/**
 * What an API test file starts with: the web process's app in-process (support/http.ts), the validator
 * of the OpenAPI document it serves, and callers that check every answer against that document.
 */
export async function apiHarness() {
  const app = await createTestApp();
  const validator = await OpenApiValidator.load(app);
  const call = (path: string, init: RequestInit = {}) => rawCall(app, validator, path, init);
  const send = (path: string, credentials: Record<string, string>, init: CallInit) =>
    call(path, {
      method: init.method ?? "GET",
      headers: {
        ...credentials,
        ...(init.body !== undefined || init.rawBody !== undefined ? { "Content-Type": "application/json" } : {}),
        ...init.headers,
      },
      body: init.rawBody ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
    });
  return {
    app,
    validator,
    call,
    /** The typed client with a shop's private key. */
    clientFor: (secret: string) => apiClient(app, validator, { Authorization: `Bearer ${secret}` }),
    /**
     * A shop's three callers (paths without `/v1`): its public key (a headless guest), its private key (the
     * shop's server, given `secret`), and the app proxy signed for `customer` (null: a guest), plus `query`.
     */
    callsOf: ({ shop, secret }: { shop: { domain: string; publicKey: string }; secret?: string }) => ({
      publicCall: (path: string, init: CallInit = {}) =>
        send(`/v1${path}`, { "X-Service-Shop": shop.domain, "X-Service-Public-Key": shop.publicKey }, init),
      privateCall: (path: string, init: CallInit = {}) => {
        if (secret === undefined)
          throw new Error("privateCall needs the shop's private key: callsOf({ shop, secret })");
        return send(`/v1${path}`, { Authorization: `Bearer ${secret}` }, init);
      },
      proxyCall: (path: string, customer: string | null, init: CallInit & { query?: Record<string, string> } = {}) =>
        send(
          signedProxyPath(`/proxy/v1${path}`, {
            shop: shop.domain,
            logged_in_customer_id: customer ?? "",
            ...(init.query ?? {}),
          }),
          {},
          init,
        ),
    }),
  };
}
