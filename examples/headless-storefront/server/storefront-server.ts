/**
 * The storefront's server: what runs beside the pages (in Hydrogen, the server's loaders and actions) and holds
 * what a browser must never see. A fetch handler (a `Request` in, a `Response` or null out), so it mounts on any
 * server; vite.config.ts mounts it on Vite's dev and preview servers.
 *  - `POST /session/login` `{ email, password, anonymousId }`: logs the customer in with the Storefront API
 *    (`customerAccessTokenCreate`, then `customer` names them), then merges the guest's list into theirs with the
 *    wishlist service's `POST /storefront/identify`, which only a private key (or the app proxy) may call: a
 *    public key gets 403. Sets an HttpOnly session cookie; answers `{ customer, merged }`.
 *  - `GET /session`: `{ customer }` (null for a guest). `POST /session/logout` ends the session.
 *  - `/wishlist/v1/storefront/...`: the logged-in customer's wishlist calls, forwarded to the service with the
 *    private key and the session's `customerId` (a public key cannot name a customer). The browser's SDK client
 *    calls it as it calls a platform app proxy: `createWishlistClient({ appProxy: true, baseUrl: "/wishlist" })`.
 * A write must come from the storefront's own pages: a request naming another origin is refused (403), and the
 * cookie is SameSite=Lax, so another site's form cannot send it.
 */
import { randomBytes } from "node:crypto";
import { createWishlistClient, isProblem } from "./sdk";
import type { StorefrontSettings } from "./settings";

/** The Storefront API version the storefront speaks (the browser's queries use the same: src/storefront-api.ts). */
export const STOREFRONT_API_VERSION = "2026-07";
const SESSION_COOKIE = "storefront_session";
/** The wishlist calls a customer's browser may make through this server: the storefront operations but the merge. */
const FORWARDED = /^\/storefront\/(?!identify(?:\/|$))[A-Za-z0-9_/-]+$/;
const MAX_BODY_BYTES = 64 * 1024;

interface Session {
  customerId: string;
  firstName: string;
  lastName: string;
  email: string;
}

/** The customer as the pages see them. */
export type SessionCustomer = Pick<Session, "firstName" | "lastName" | "email">;

/** A problem document (RFC 9457), as the wishlist service answers, so the browser's SDK reads both alike. */
function problem(status: number, title: string, detail: string): Response {
  return Response.json(
    { type: "about:blank", title, status, detail },
    {
      status,
      headers: { "content-type": "application/problem+json", "cache-control": "no-store" },
    },
  );
}

/** A JSON object's members, or null for anything else (no body, not JSON, an array). */
function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function createStorefrontServer(settings: StorefrontSettings) {
  const sessions = new Map<string, Session>();
  // The private key: this server's calls only, never sent to the browser.
  const wishlist = createWishlistClient({ baseUrl: settings.wishlistUrl, privateKey: settings.privateKey });

  async function storefrontQuery<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    const response = await fetch(`${settings.storefrontOrigin}/api/${STOREFRONT_API_VERSION}/graphql.json`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-shopify-storefront-access-token": settings.storefrontAccessToken,
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: T; errors?: Array<{ message: string }> };
    if (!response.ok || body.errors?.length || !body.data) {
      throw new Error(`Storefront API: ${body.errors?.map((error) => error.message).join("; ") || response.status}`);
    }
    return body.data;
  }

  const sessionOf = (request: Request) => {
    const id = /(?:^|;\s*)storefront_session=([a-f0-9]{64})(?:;|$)/.exec(request.headers.get("cookie") ?? "")?.[1];
    return id ? { id, session: sessions.get(id) } : { id: undefined, session: undefined };
  };
  const customerOf = (session: Session): SessionCustomer => ({
    firstName: session.firstName,
    lastName: session.lastName,
    email: session.email,
  });

  async function logIn(request: Request): Promise<Response> {
    const input = (await request.json().catch(() => null)) as {
      email?: unknown;
      password?: unknown;
      anonymousId?: unknown;
    } | null;
    if (typeof input?.email !== "string" || typeof input.password !== "string") {
      return problem(400, "Bad request", "Send { email, password, anonymousId } as JSON.");
    }
    const { customerAccessTokenCreate: created } = await storefrontQuery<{
      customerAccessTokenCreate: {
        customerAccessToken: { accessToken: string } | null;
        customerUserErrors: Array<{ code: string | null; message: string }>;
      };
    }>(
      `mutation LogIn($input: CustomerAccessTokenCreateInput!) {
        customerAccessTokenCreate(input: $input) {
          customerAccessToken { accessToken }
          customerUserErrors { code message }
        }
      }`,
      { input: { email: input.email, password: input.password } },
    );
    if (!created.customerAccessToken) {
      return problem(
        401,
        "Unauthorized",
        created.customerUserErrors.map((error) => error.message).join(" ") || "No such customer.",
      );
    }
    const { customer } = await storefrontQuery<{
      customer: { id: string; email: string; firstName: string; lastName: string } | null;
    }>(`query Customer($token: String!) { customer(customerAccessToken: $token) { id email firstName lastName } }`, {
      token: created.customerAccessToken.accessToken,
    });
    if (!customer) return problem(401, "Unauthorized", "The Storefront API did not name the customer.");
    const session: Session = {
      customerId: customer.id.replace(/^gid:\/\/shopify\/Customer\//, ""),
      firstName: customer.firstName,
      lastName: customer.lastName,
      email: customer.email,
    };
    // The guest's list joins the customer's. Without a guest id (a browser that never saved) there is nothing to merge.
    let merged = { count: 0, guestShareLinkEnded: false };
    if (typeof input.anonymousId === "string" && input.anonymousId !== "") {
      try {
        const { data } = await wishlist.POST("/storefront/identify", {
          body: { anonymousId: input.anonymousId, customerId: session.customerId },
        });
        merged = {
          count: data.lists.reduce((sum, list) => sum + list.mergedCount, 0),
          guestShareLinkEnded: data.guestShareLinkEnded,
        };
      } catch (error) {
        // A malformed guest id is the browser's fault; the login itself stands.
        if (!isProblem(error, "validation-error") && !isProblem(error, "invalid-parameter")) throw error;
      }
    }
    const id = randomBytes(32).toString("hex");
    sessions.set(id, session);
    return Response.json(
      { customer: customerOf(session), merged },
      {
        headers: {
          "set-cookie": `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Lax`,
          "cache-control": "no-store",
        },
      },
    );
  }

  /** A customer's wishlist call, forwarded with the private key and the session's customer (never the browser's). */
  async function forward(request: Request, url: URL, session: Session | undefined): Promise<Response> {
    if (!session)
      return problem(
        401,
        "Unauthorized",
        "Log in first: a guest's calls go to the wishlist service with the public key.",
      );
    const operation = url.pathname.slice("/wishlist/v1".length);
    if (!FORWARDED.test(operation)) return problem(404, "Not Found", `${operation} is not forwarded.`);
    const query = new URLSearchParams(url.search);
    query.delete("aid");
    query.set("customerId", session.customerId);
    const headers = new Headers({ authorization: `Bearer ${settings.privateKey}`, accept: "application/json" });
    for (const name of ["content-type", "idempotency-key", "accept-language"]) {
      const value = request.headers.get(name);
      if (value) headers.set(name, value);
    }
    let body: string | undefined;
    if (request.method !== "GET" && request.method !== "HEAD") {
      // No body stays none (a string, even empty, would go as text/plain, which the service refuses).
      body = (await request.text()) || undefined;
      if (body && body.length > MAX_BODY_BYTES) return problem(413, "Payload Too Large", "At most 64 KB.");
      // The shopper is the session's: a guest id or a customer id in the body would name someone else.
      // (A body that is not JSON goes as it came: the service answers it with its own problem.)
      const parsed = body === undefined ? null : jsonObject(body);
      if (parsed) {
        delete parsed.anonymousId;
        delete parsed.customerId;
        body = JSON.stringify(parsed);
      }
    }
    const answer = await fetch(`${settings.wishlistUrl}/v1${operation}?${query}`, {
      method: request.method,
      headers,
      body,
    });
    const passed = new Headers();
    for (const name of ["content-type", "cache-control", "x-request-id", "retry-after", "idempotent-replayed"]) {
      const value = answer.headers.get(name);
      if (value) passed.set(name, value);
    }
    return new Response(answer.status === 204 ? null : await answer.arrayBuffer(), {
      status: answer.status,
      headers: passed,
    });
  }

  /** Answers the storefront server's paths; null for anything else (the pages and their assets). */
  return async function handle(request: Request): Promise<Response | null> {
    const url = new URL(request.url);
    const ours =
      url.pathname === "/session" || url.pathname.startsWith("/session/") || url.pathname.startsWith("/wishlist/");
    if (!ours) return null;
    const origin = request.headers.get("origin");
    if (request.method !== "GET" && request.method !== "HEAD" && origin !== null && origin !== url.origin) {
      return problem(403, "Forbidden", `Writes come from this storefront's pages (${url.origin}), not ${origin}.`);
    }
    const { id, session } = sessionOf(request);
    try {
      if (url.pathname === "/session" && request.method === "GET") {
        return Response.json(
          { customer: session ? customerOf(session) : null },
          { headers: { "cache-control": "no-store" } },
        );
      }
      if (url.pathname === "/session/login" && request.method === "POST") return await logIn(request);
      if (url.pathname === "/session/logout" && request.method === "POST") {
        if (id) sessions.delete(id);
        return new Response(null, {
          status: 204,
          headers: { "set-cookie": `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0` },
        });
      }
      if (url.pathname.startsWith("/wishlist/v1/")) return await forward(request, url, session);
      return problem(404, "Not Found", `No ${request.method} ${url.pathname} here.`);
    } catch (error) {
      // The service's refusal goes to the browser as it came; a service or Storefront API that did not answer is a 502.
      if (isProblem(error))
        return Response.json(error.problem, {
          status: error.status,
          headers: { "content-type": "application/problem+json" },
        });
      return problem(
        502,
        "Bad Gateway",
        `The wishlist service or the Storefront API failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
}
