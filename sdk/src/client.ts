import createFetchClient, { type FetchResponse, type MaybeOptionalInit, type Middleware } from "openapi-fetch";
import { errorOf } from "./errors";
import type { paths } from "../../api-types/openapi";
import { retryingFetch, type RetryOptions } from "./retry";

interface Common {
  /** Retries of network errors, 429 and 503 (default: 3 retries with backoff; `{ retries: 0 }` turns them off). */
  retry?: RetryOptions;
  /** The `fetch` to call (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request (a `User-Agent` naming your app, say, where the runtime allows it). */
  headers?: Record<string, string>;
}

/** On a server: the shop's private key `svc_sk_...`, every private operation. Never in a browser. */
export interface PrivateKeyOptions extends Common {
  /** The service's address, e.g. `https://wishlist.example` (the client adds `/v1`). */
  baseUrl: string;
  privateKey: string;
}

/** In a browser (a headless storefront): the shop's public key `svc_pk_...` and its domain; storefront operations. */
export interface PublicKeyOptions extends Common {
  baseUrl: string;
  publicKey: string;
  /** The shop's domain, `example.myshopify.com`. */
  shop: string;
}

/**
 * In theme code on the shop's own domain: requests go through the platform's app proxy, which signs them and
 * names the logged-in customer; storefront operations, no key.
 */
export interface AppProxyOptions extends Common {
  appProxy: true;
  /** The proxy's path on the shop's domain (default `/apps/service`). */
  baseUrl?: string;
}

export type WishlistClientOptions = PrivateKeyOptions | PublicKeyOptions | AppProxyOptions;

/**
 * The typed client: `GET`, `POST`, `PATCH`, `PUT`, `DELETE` on the paths of the API document (under `/v1`), with
 * typed parameters, bodies and answers (openapi-fetch). An answer that is not a success throws a
 * `WishlistApiError`; every call takes `signal` (an `AbortSignal`).
 */
type Media = `${string}/${string}`;
type HttpMethod = "get" | "put" | "post" | "delete" | "patch";
/** The document's paths that have this method (openapi-typescript writes `get?: never` for a missing one). */
type PathsWith<M extends HttpMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
/** The call's options: optional when the operation needs no parameter and no body. */
type InitParam<Init> =
  RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
/** A call that came back: the SDK throws every error answer (`WishlistApiError`), so `data` is the success body. */
type Answer<R> = R extends { data: infer D; error?: never } ? { data: D; response: Response } : never;
type Method<M extends HttpMethod> = <Path extends PathsWith<M>, Init extends MaybeOptionalInit<paths[Path], M>>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<
  paths[Path][M] extends infer Operation extends Record<string | number, unknown>
    ? Answer<FetchResponse<Operation, Init, Media>>
    : never
>;

/**
 * openapi-fetch's client over the API document, typed for the SDK's behaviour: an error answer is thrown, never
 * returned, so `const { data } = await client.GET(...)` is the success body, without a check for `undefined`.
 */
export interface WishlistClient {
  GET: Method<"get">;
  POST: Method<"post">;
  PUT: Method<"put">;
  PATCH: Method<"patch">;
  DELETE: Method<"delete">;
  /** Adds openapi-fetch middleware (`onRequest`, `onResponse`, `onError`). */
  use(...middleware: Middleware[]): void;
  eject(...middleware: Middleware[]): void;
}

/**
 * A page (a global `window` and `document`), or a browser's web or service worker: a worker scope with a browser's
 * user agent (`Mozilla/5.0 ...`). Edge runtimes, where a private key belongs, name themselves otherwise
 * (`Cloudflare-Workers`, `Deno/...`), and some define worker globals such as `importScripts`.
 */
function inBrowser(): boolean {
  const scope = globalThis as { window?: unknown; document?: unknown; WorkerGlobalScope?: unknown };
  if (scope.window !== undefined && scope.document !== undefined) return true;
  const userAgent = (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent;
  return scope.WorkerGlobalScope !== undefined && typeof userAgent === "string" && userAgent.startsWith("Mozilla/");
}

/** The prefixes of the service's own credentials, which name the kind of a key and nothing of its secret. */
const KEY_PREFIXES = ["svc_sk_", "svc_pk_", "whsec_"];

/**
 * What a wrong key option was, without printing a secret: an unset environment variable shows as `undefined`, one
 * of the service's keys by its prefix, and any other string by its length only (it may be another secret, such as
 * an API secret of the platform, whose first characters are no one's business).
 */
function describe(value: unknown): string {
  if (typeof value !== "string") return String(value);
  if (value === "") return "an empty string";
  const prefix = KEY_PREFIXES.find((known) => value.startsWith(known));
  return prefix ? `a string starting ${JSON.stringify(prefix)}` : `a string of ${value.length} characters, not shown`;
}

export function createWishlistClient(options: WishlistClientOptions): WishlistClient {
  const headers: Record<string, string> = { ...options.headers };
  let baseUrl: string;
  if ("privateKey" in options) {
    if (inBrowser()) {
      throw new Error(
        "A private key (svc_sk_...) must never reach a browser: anyone could read it and act for the shop. " +
          "Use the public key and the shop's domain in browser code, the private key on your server only.",
      );
    }
    if (typeof options.privateKey !== "string" || !options.privateKey.startsWith("svc_sk_")) {
      throw new Error(`privateKey takes the shop's svc_sk_... key (got ${describe(options.privateKey)})`);
    }
    headers.Authorization = `Bearer ${options.privateKey}`;
    baseUrl = options.baseUrl;
  } else if ("publicKey" in options) {
    if (typeof options.publicKey !== "string" || !options.publicKey.startsWith("svc_pk_")) {
      throw new Error(
        `publicKey takes the shop's svc_pk_... key, never the private svc_sk_... one (got ${describe(options.publicKey)})`,
      );
    }
    if (!options.shop) throw new Error("publicKey needs the shop's domain (shop: 'example.myshopify.com')");
    headers["X-Service-Public-Key"] = options.publicKey;
    headers["X-Service-Shop"] = options.shop;
    baseUrl = options.baseUrl;
  } else {
    baseUrl = options.baseUrl ?? "/apps/service";
  }
  const client = createFetchClient<paths>({
    baseUrl: `${baseUrl.replace(/\/+$/, "")}/v1`,
    fetch: retryingFetch(options.fetch ?? ((request) => globalThis.fetch(request)), options.retry),
  });
  // Neither hook returns what it was given: openapi-fetch checks a returned value with `instanceof` against the
  // global Request/Response, which a host may have replaced since the fetch made it (@hono/node-server and Remix's
  // installGlobals do), and would then refuse an answer it only had to pass on.
  const auth: Middleware = {
    onRequest({ request }) {
      for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
    },
    async onResponse({ response }) {
      if (!response.ok) throw await errorOf(response);
    },
  };
  client.use(auth);
  return client as unknown as WishlistClient;
}

/** The `X-Request-Id` of an answer (`const { data, response } = await client.GET(...)`): quote it to support. */
export function requestIdOf(response: Response): string | null {
  return response.headers.get("X-Request-Id");
}

interface Page<T> {
  data: T[];
  pageInfo: { nextCursor: string | null };
}

/**
 * Every item of a paged operation, page after page until `nextCursor` is null:
 * `for await (const list of paginate((cursor) => client.GET("/lists", { params: { query: { cursor } } })))`.
 */
export async function* paginate<T>(
  page: (cursor: string | undefined) => Promise<{ data?: Page<T> }>,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const { data } = await page(cursor);
    if (!data) return;
    yield* data.data;
    cursor = data.pageInfo.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
