/**
 * The catalogue of problem types (RFC 9457). Each `type` URL is `<app url>/problems/<slug>` and the app
 * serves a page for it from this table, so the slug and status of an entry never change within v1;
 * clients branch on `type`, never on `title` or `detail`.
 */
export const PROBLEM_TYPES = {
  "bad-request": {
    status: 400,
    title: "Bad request",
    description: "The request could not be understood. The detail member says what was wrong.",
  },
  "malformed-json": {
    status: 400,
    title: "Malformed JSON body",
    description: "The body is not valid JSON. Send a UTF-8 JSON document with `Content-Type: application/json`.",
  },
  "body-required": {
    status: 400,
    title: "JSON body required",
    description:
      "This operation requires a JSON body, even when it names nothing: send `{}` (with `Content-Type: " +
      "application/json`) rather than no body at all.",
  },
  "invalid-parameter": {
    status: 400,
    title: "Invalid query, path or header parameter",
    description:
      "A query, path or header parameter is missing or has the wrong shape. The `errors` member lists each " +
      "offending `parameter` with a `detail`.",
  },
  "invalid-id": {
    status: 400,
    title: "Invalid id",
    description:
      "Service ids carry a type prefix (`lst_`, `itm_`, `evt_`, ...). An id with the wrong prefix, or that is " +
      "not a service id at all, is refused with 400 rather than 404.",
  },
  "invalid-cursor": {
    status: 400,
    title: "Invalid cursor",
    description:
      "The `cursor` parameter must be a `pageInfo.nextCursor` value returned by the same endpoint, unchanged. " +
      "Cursors are opaque and signed; edited or foreign cursors are refused.",
  },
  "ambiguous-shopper": {
    status: 400,
    title: "More than one shopper named",
    description:
      "A storefront request acts for one shopper: a customer (`customerId`) or a guest (`aid` in the query, " +
      "`anonymousId` in the body), never both at once. The `errors` member names each one sent, by `parameter` " +
      "(query) or `pointer` (body). Send only the shopper the call is for.",
  },
  unauthorized: {
    status: 401,
    title: "Authentication required",
    description:
      "The request carries no valid credential: a missing, unknown or revoked key, or an app proxy request " +
      "whose signature does not verify. Servers send `Authorization: Bearer svc_sk_...` (a private key); " +
      "browsers send `X-Service-Shop` and `X-Service-Public-Key: svc_pk_...`; the theme calls through the app " +
      "proxy, which the platform signs; the customer account extension sends the session token the platform " +
      "signed for a logged-in customer (`Authorization: Bearer <token>`), which must be unexpired, for this app, " +
      "and name a customer.",
  },
  forbidden: {
    status: 403,
    title: "Forbidden",
    description:
      "The credential is valid but does not allow this operation (for example a public key on a private path).",
  },
  "plan-required": {
    status: 403,
    title: "A higher plan is required",
    description:
      "The operation belongs to a feature the shop's plan does not include. The `plan` member names the cheapest " +
      "plan that does (an open set of strings: `GROWTH`, `PLUS` today), `currentPlan` the shop's plan and " +
      "`feature` the feature. Nothing was read or changed. The merchant changes plans on the app's Plan page; " +
      "every shopper feature, webhooks and every operation not marked `x-plan` stay on every plan.",
  },
  "shop-uninstalled": {
    status: 403,
    title: "App uninstalled from this shop",
    description:
      "The credential belongs to a shop that has uninstalled the app. Its private and public keys and its app " +
      "proxy calls are refused until the merchant installs the app again; nothing was read or changed.",
  },
  "guest-wishlists-disabled": {
    status: 403,
    title: "Guest wishlists are disabled",
    description:
      "This shop does not keep wishlists for shoppers who are not logged in (settings.guestEnabled is false). " +
      "Ask the shopper to log in; reads still answer.",
  },
  "sharing-disabled": {
    status: 403,
    title: "Sharing is disabled",
    description:
      "This shop does not allow wishlist share links (settings.shareEnabled is false): links cannot be created and " +
      "shared lists are not shown.",
  },
  "multiple-lists-disabled": {
    status: 403,
    title: "Named lists are disabled",
    description:
      "This shop keeps one wishlist per shopper (settings.multipleLists is false): a named list cannot be " +
      "created. Lists made before stay readable, and can be renamed, emptied and deleted.",
  },
  "not-found": {
    status: 404,
    title: "Not found",
    description: "No such resource exists for this shop, or the path is not part of the API.",
  },
  "method-not-allowed": {
    status: 405,
    title: "Method not allowed",
    description:
      "The path exists but not with this HTTP method. The `Allow` response header lists the methods it accepts.",
  },
  conflict: {
    status: 409,
    title: "Conflict",
    description: "The request conflicts with the current state of the resource.",
  },
  "list-full": {
    status: 409,
    title: "Wishlist full",
    description:
      "The wishlist already holds the most items a list may hold (500 unless the service is configured otherwise; " +
      "the `maxItems` member gives it). Remove an item before saving another; removing always works. Imports " +
      "skip the rows beyond it and report them.",
  },
  "list-name-taken": {
    status: 409,
    title: "List name taken",
    description:
      "The shopper has a list of that name already. Names are compared trimmed and ignoring case: `Gifts` and " +
      "` gifts ` are the same name. Choose another name, or use the existing list.",
  },
  "too-many-lists": {
    status: 409,
    title: "Too many lists",
    description:
      "The shopper keeps the most lists the shop allows (settings.maxListsPerOwner, 20 by default, the default " +
      "list included; the `maxLists` member gives it). Delete a list before creating another.",
  },
  "default-list": {
    status: 409,
    title: "Default list",
    description:
      "The change is not allowed on the shopper's default list: it cannot be deleted (empty it instead, or " +
      "rename it). Every shopper keeps one default list, which GET /storefront/wishlist reads.",
  },
  "item-in-list": {
    status: 409,
    title: "Already on that list",
    description:
      "The list a move or copy names holds the product already (a list holds a product once, whatever its " +
      "variant); the `itemId` member names the item there. Nothing was changed.",
  },
  "idempotency-key-in-use": {
    status: 409,
    title: "Idempotency key in use",
    description:
      "Another request with the same `Idempotency-Key` is still being processed. Wait for it to finish, then " +
      "retry: the retry returns its result.",
  },
  "platform-not-connected": {
    status: 409,
    title: "Shop not connected to the platform",
    description:
      "The operation needs the shop's platform access token, and there is none (the app was never opened from " +
      "the shop's admin, or the token was revoked). Open the app from the shop's admin, then retry.",
  },
  "signed-url-invalid": {
    status: 403,
    title: "Invalid signed URL",
    description:
      "The file URL's signature does not match: it was altered, or it was made for another operation. Use the " +
      "URL exactly as the API returned it.",
  },
  "alert-link-invalid": {
    status: 400,
    title: "Invalid alert email link",
    description:
      "The unsubscribe or product link of a wishlist alert email does not verify: it was altered or cut " +
      "short. Use the link exactly as the email gave it; a mail client that wraps long lines may break it.",
  },
  "signed-url-expired": {
    status: 403,
    title: "Signed URL expired",
    description:
      "The file URL is past its expiry (upload URLs last 15 minutes, download URLs 24 hours). Ask the API for a " +
      "new one: POST /v1/imports/upload again, or GET the job again for a fresh `resultUrl`.",
  },
  "content-type-mismatch": {
    status: 415,
    title: "Content-Type differs from the declared one",
    description:
      "An upload must be sent with exactly the Content-Type declared when its URL was requested (POST " +
      "/v1/imports/upload `contentType`).",
  },
  "file-expired": {
    status: 410,
    title: "File deleted after its retention period",
    description:
      "Export files and import reports are kept for a number of days after their job finished, and uploaded " +
      "import files for that many days after an import last started from them (7 unless the service is " +
      "configured otherwise), then deleted. The job stays listed, with `resultDeletedAt`. Export again, or " +
      "upload the file again (POST /v1/imports/upload), to get a new one.",
  },
  "event-redacted": {
    status: 410,
    title: "Event erased for a customer redaction",
    description:
      "The event named a customer whose data the shop erased (the platform's customers/redact request): its data " +
      "is gone from the service and it is not delivered again. Other events are redelivered as usual.",
  },
  "payload-too-large": {
    status: 413,
    title: "Payload too large",
    description:
      "The request body is over its cap; the `maxBytes` member gives it. JSON bodies of the API may be at most " +
      "256 KiB (262,144 bytes); import files at most 50 MB (52,428,800 bytes): split the file and import the " +
      "parts. A body is refused as soon as it passes its cap, before the rest of it is read.",
  },
  "unsupported-media-type": {
    status: 415,
    title: "Unsupported media type",
    description: "Request bodies must be JSON, sent with `Content-Type: application/json`.",
  },
  "validation-error": {
    status: 422,
    title: "Validation failed",
    description:
      "The JSON body is well-formed but its content is invalid. The `errors` member lists each problem with a " +
      "JSON Pointer (`pointer`, RFC 6901 in URI fragment form) to the offending member and a `detail`.",
  },
  "idempotency-key-reused": {
    status: 422,
    title: "Idempotency key reused with a different request",
    description:
      "An `Idempotency-Key` was sent again within 24 hours with a different method, path or body. Use a new " +
      "key for a new request.",
  },
  "rate-limited": {
    status: 429,
    title: "Too many requests",
    description:
      "A rate limit was exceeded. Wait for the number of seconds in the `Retry-After` header before retrying.",
  },
  "internal-error": {
    status: 500,
    title: "Internal server error",
    description:
      "Something went wrong on our side. The response carries an `X-Request-Id` header; quote it when you " +
      "contact support. Retrying later is safe for idempotent requests.",
  },
  "platform-unavailable": {
    status: 502,
    title: "Platform unavailable",
    description:
      "The commerce platform's API did not answer in time or answered with an error. Nothing was changed; retry " +
      "later.",
  },
  "service-unavailable": {
    status: 503,
    title: "Service unavailable",
    description: "A dependency of the service (database or Redis) is not reachable. Retry later.",
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ProblemSlug = keyof typeof PROBLEM_TYPES;

export function isProblemSlug(value: string): value is ProblemSlug {
  return Object.hasOwn(PROBLEM_TYPES, value);
}

/** One entry of the `errors` extension member: where (`pointer` for bodies, `parameter` otherwise) and what. */
export interface ProblemFieldError {
  pointer?: string;
  parameter?: string;
  detail: string;
}

export interface ProblemOptions {
  detail?: string;
  errors?: ProblemFieldError[];
  /** Response headers that belong to this problem, e.g. `Allow` or `Retry-After`. */
  headers?: Record<string, string>;
  /** Further extension members (RFC 9457 section 3.2). */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * The typed application error that services and handlers throw. One mapper turns it into a problem
 * document; nothing else builds error responses.
 */
export class AppError extends Error {
  readonly status: number;
  readonly detail: string | undefined;
  readonly errors: ProblemFieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(
    readonly slug: ProblemSlug,
    options: ProblemOptions = {},
  ) {
    super(options.detail ?? PROBLEM_TYPES[slug].title, { cause: options.cause });
    this.name = "AppError";
    this.status = PROBLEM_TYPES[slug].status;
    this.detail = options.detail;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}

export function problemTypeUrl(baseUrl: string, slug: ProblemSlug): string {
  return `${baseUrl}/problems/${slug}`;
}
