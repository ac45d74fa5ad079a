import type { OpenAPIHono } from "@hono/zod-openapi";
import { PROBLEM_TYPES, problemTypeUrl, type ProblemSlug } from "~/lib/problems";
import type { V1Env } from "./context";
import { API_BODY_LIMIT_BYTES } from "../body-limit.server";

const DESCRIPTION = `
The wishlist service API, version 1. Every path lies under \`/v1\`; changes within v1 are additive only.

**Calling modes.** *Private key* (server): \`Authorization: Bearer svc_sk_...\`, full shop scope.
*Public key* (browser): \`X-Service-Shop\` and \`X-Service-Public-Key: svc_pk_...\`, storefront endpoints only,
anonymous scope only; CORS is granted to the shop's \`settings.headlessOrigins\`. *App proxy* (theme code):
requests to \`https://<shop>/apps/service/v1/storefront/...\` that the platform signs and forwards; the
customer comes from the signed \`logged_in_customer_id\`. *Customer account* (the customer account extension):
\`Authorization: Bearer <session token>\`, the JWT the platform signs for a logged-in customer (\`dest\` the shop,
\`sub\` the customer); the operations on the customer's own lists and items only; CORS is granted to any origin.

**Errors** are RFC 9457 problem documents (\`application/problem+json\`); branch on \`type\`. Types:
{{PROBLEMS}}

**Pagination**: opaque \`cursor\` and \`limit\` (1-100, default 50); \`pageInfo.nextCursor\` is null at the end.

**Idempotency**: any POST may carry \`Idempotency-Key\` (1-255 visible ASCII characters). Within 24 hours a
retry with the same key (same shop and credential; with a public key, the app proxy or a customer account session
token, also the same shopper: customer or anonymous id) returns the original status and body with
\`Idempotent-Replayed: true\` and repeats nothing; the same key with a different request is a 422
\`idempotency-key-reused\`; a retry while the first is still running is a 409 \`idempotency-key-in-use\`.
Server errors (5xx) release the key; a first request that never finished (still in progress a minute after
it began) is taken as abandoned, and a retry after that runs anew.

**Rate limits**: 600 requests a minute per shop on private endpoints (bucket \`shop\`), 60 a minute per
shopper on \`/v1/storefront/*\` (bucket \`shopper\`: the customer, else the anonymous id, else the client
address), and on the storefront also 300 a minute per client address (bucket \`address\`). Every counted
response carries \`X-RateLimit-Limit-<Bucket>\`, \`X-RateLimit-Remaining-<Bucket>\` and
\`X-RateLimit-Reset-<Bucket>\` (seconds until the window resets; \`<Bucket>\` is \`Shop\`, \`Shopper\` or
\`Address\`) for each bucket it was counted in, and the IETF fields \`RateLimit-Policy: "shop";q=600;w=60\` and
\`RateLimit: "shop";r=<remaining>;t=<seconds>\` (one entry per bucket). Over the limit: 429 \`rate-limited\` with
\`Retry-After\`. Each operation lists these headers on its responses. Each bucket, with examples of the SDK's
handling: docs/rate-limits.md.

**Plans**: every operation is on every plan except those marked \`x-plan\` (the cheapest plan that has the
operation's feature, an open set of strings: \`GROWTH\` today). On a shop whose plan lacks it they answer 403
\`plan-required\` (\`PlanRequiredProblem\`: \`plan\`, \`currentPlan\`, \`feature\`), counted by the rate limits, before
their parameters are read. \`plan\` in \`GET /v1/shop\` is the shop's plan. docs/plans.md.

**Deprecation**: a deprecated operation is marked \`deprecated\` here and answers with \`Deprecation: @<unix
time>\`, \`Sunset: <HTTP date>\` when it has an end date, and \`Link: <changelog>; rel="deprecation"\`, at
least 90 days ahead.

**Conventions**: service ids carry a type prefix (\`lst_\`, \`itm_\`, \`evt_\`, \`key_\`, ...) and a wrong prefix is a
400 \`invalid-id\`; platform ids are decimal strings; timestamps are ISO-8601 UTC with milliseconds and Z.
Every response carries \`X-Request-Id\`, and \`Cache-Control: no-store\` (this document excepted). Request bodies
are JSON (\`Content-Type: application/json\`) of at most ${API_BODY_LIMIT_BYTES} bytes, counted as they arrive: a
larger one is a 413 \`payload-too-large\`.
`;

type HeaderObject = { description: string; required?: boolean; schema: Record<string, unknown> };
type Header = HeaderObject | { $ref: string };

const ref = (component: string): Header => ({ $ref: `#/components/headers/${component}` });
/** Suffix of the component that declares a header as not always present. */
const OPTIONAL = ".optional";
const NOT_COUNTED = " Absent when the request was refused before it was counted (401, and some 400, 403 and 415).";

/**
 * The rate-limit buckets (app/api/v1/rate-limit.server.ts) by header suffix. Private operations are counted
 * in `shop`; storefront operations in `shopper` and, when the client address is known, `address`.
 */
const BUCKETS = {
  Shop: { name: "shop", limit: "600 a minute per shop by default (RATE_LIMIT_PRIVATE_PER_MINUTE)" },
  Shopper: { name: "shopper", limit: "60 a minute per shopper by default (RATE_LIMIT_STOREFRONT_PER_MINUTE)" },
  Address: {
    name: "address",
    limit: "300 a minute per client address by default (RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE)",
  },
} as const;
type BucketSuffix = keyof typeof BUCKETS;

/** The operation's bucket: `Shop` for private operations, `Shopper` for storefront ones. */
export type HeaderBucket = "Shop" | "Shopper";

function bucketHeaders(bucket: BucketSuffix): Record<string, HeaderObject> {
  const { name, limit } = BUCKETS[bucket];
  return {
    [`X-RateLimit-Limit-${bucket}`]: {
      description: `Requests allowed in a window of the \`${name}\` bucket: ${limit}.`,
      schema: { type: "integer", minimum: 1 },
    },
    [`X-RateLimit-Remaining-${bucket}`]: {
      description: `Requests left in the current window of the \`${name}\` bucket.`,
      schema: { type: "integer", minimum: 0 },
    },
    [`X-RateLimit-Reset-${bucket}`]: {
      description: `Seconds until the window of the \`${name}\` bucket resets.`,
      schema: { type: "integer", minimum: 0 },
    },
  };
}

/** IETF RateLimit fields; a storefront request lists each bucket it was counted in, comma-separated. */
const IETF_HEADERS: Record<HeaderBucket, Record<string, HeaderObject>> = {
  Shop: {
    RateLimit: {
      description: 'Remaining quota: `"shop";r=<remaining>;t=<seconds to reset>`.',
      schema: { type: "string", example: '"shop";r=599;t=60' },
    },
    "RateLimit-Policy": {
      description: 'The quota: `"shop";q=<limit>;w=60`.',
      schema: { type: "string", example: '"shop";q=600;w=60' },
    },
  },
  Shopper: {
    RateLimit: {
      description:
        'Remaining quota of each bucket counted: `"shopper";r=<remaining>;t=<seconds>`, then ' +
        '`, "address";r=...;t=...` when the client address was counted too.',
      schema: { type: "string", example: '"shopper";r=59;t=60, "address";r=299;t=60' },
    },
    "RateLimit-Policy": {
      description: 'The quota of each bucket counted: `"shopper";q=<limit>;w=60` (and `"address";q=...;w=60`).',
      schema: { type: "string", example: '"shopper";q=60;w=60, "address";q=300;w=60' },
    },
  },
};

/** Headers of /v1 answers, as components (`#/components/headers/<name>`). */
const HEADER_COMPONENTS: Record<string, HeaderObject> = {
  "X-Request-Id": {
    description: "The request's id (the client's well-formed X-Request-Id, else a new one); quote it to support.",
    required: true,
    schema: { type: "string" },
  },
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    required: true,
    schema: { type: "integer", minimum: 0 },
  },
  [`Retry-After${OPTIONAL}`]: {
    description:
      "Seconds to wait before retrying: on a POST's 409 `idempotency-key-in-use`, and on a 503 " +
      "`service-unavailable` (every 503 the database causes carries it).",
    schema: { type: "integer", minimum: 0 },
  },
  "Idempotent-Replayed": {
    description:
      "`true` when this is the stored answer to an earlier request with the same Idempotency-Key: the work was " +
      "not repeated. Absent otherwise.",
    schema: { type: "string", enum: ["true"] },
  },
};

/** Component name of a rate-limit header of the operation's bucket (the IETF fields differ per bucket). */
const componentName = (header: string, bucket: HeaderBucket) =>
  header.startsWith("RateLimit") ? `${header}-${bucket}` : header;

for (const bucket of ["Shop", "Shopper"] as const) {
  for (const [name, header] of Object.entries({ ...bucketHeaders(bucket), ...IETF_HEADERS[bucket] })) {
    const component = componentName(name, bucket);
    HEADER_COMPONENTS[component] = { ...header, required: true };
    HEADER_COMPONENTS[`${component}${OPTIONAL}`] = { ...header, description: `${header.description}${NOT_COUNTED}` };
  }
}
for (const [name, header] of Object.entries(bucketHeaders("Address"))) {
  HEADER_COMPONENTS[name] = {
    ...header,
    description: `${header.description} Present when the client address was counted (requests over a socket).`,
  };
}

/** The `Idempotency-Key` header of every POST (`#/components/parameters/IdempotencyKey`). */
export const IDEMPOTENCY_KEY_PARAMETER = { $ref: "#/components/parameters/IdempotencyKey" };

const IDEMPOTENCY_KEY_COMPONENT = {
  name: "Idempotency-Key",
  in: "header" as const,
  required: false,
  description:
    "Makes the POST safe to retry: within 24 hours the same key and the same request get the original status and " +
    "body back with `Idempotent-Replayed: true`, and the work is not repeated. The same key with another request " +
    "is 422 `idempotency-key-reused`; while the first is still running, 409 `idempotency-key-in-use`.",
  schema: { type: "string" as const, minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7e]+$" },
  example: "order-2026-11-22-0001",
};

/**
 * The response headers of one operation, declared on each of its responses: X-Request-Id always; the
 * rate-limit headers of its buckets (required on success, optional on errors, some of which are refused before
 * counting; `address` always optional); Retry-After on 429 (and optionally on a POST's 409 and on 503); Idempotent-Replayed
 * on a POST's answers below 500 (those are the ones stored for replay).
 */
export function withResponseHeaders<R extends Record<string, object>>(
  responses: R,
  { method, bucket }: { method: string; bucket: HeaderBucket },
): R {
  const documented: Record<string, object> = {};
  for (const [status, response] of Object.entries(responses)) {
    const code = Number(status);
    const counted = code >= 200 && code < 400;
    const rateLimit: Record<string, Header> = {};
    for (const name of Object.keys({ ...bucketHeaders(bucket), ...IETF_HEADERS[bucket] })) {
      const component = componentName(name, bucket);
      rateLimit[name] = ref(counted ? component : `${component}${OPTIONAL}`);
    }
    if (bucket === "Shopper") for (const name of Object.keys(bucketHeaders("Address"))) rateLimit[name] = ref(name);
    const headers: Record<string, Header> = {
      "X-Request-Id": ref("X-Request-Id"),
      ...rateLimit,
      ...(code === 429 ? { "Retry-After": ref("Retry-After") } : {}),
      ...((code === 409 && method === "post") || code === 503 ? { "Retry-After": ref(`Retry-After${OPTIONAL}`) } : {}),
      ...(method === "post" && code < 500 ? { "Idempotent-Replayed": ref("Idempotent-Replayed") } : {}),
    };
    const existing = (response as { headers?: Record<string, Header> }).headers;
    documented[status] = { ...response, headers: { ...headers, ...existing } };
  }
  return documented as R;
}

export function buildOpenApiDocument(app: OpenAPIHono<V1Env>, baseUrl: string) {
  const problems = (Object.keys(PROBLEM_TYPES) as ProblemSlug[])
    .map((slug) => `\`${problemTypeUrl(baseUrl, slug)}\` (${PROBLEM_TYPES[slug].status}, ${PROBLEM_TYPES[slug].title})`)
    .join("; ");
  for (const [name, header] of Object.entries(HEADER_COMPONENTS)) {
    app.openAPIRegistry.registerComponent("headers", name, header);
  }
  app.openAPIRegistry.registerComponent("parameters", "IdempotencyKey", IDEMPOTENCY_KEY_COMPONENT);
  app.openAPIRegistry.registerComponent("securitySchemes", "privateKey", {
    type: "http",
    scheme: "bearer",
    description: "Private key `svc_sk_...` (server side only).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "publicKey", {
    type: "apiKey",
    in: "header",
    name: "X-Service-Public-Key",
    description: "The shop's public key `svc_pk_...`, sent together with `X-Service-Shop: <shop domain>`.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "customerAccount", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "Additive. The customer account extension's session token (`shopify.sessionToken.get()`), sent as " +
      "`Authorization: Bearer <token>` (a credential with the form of a JWT, never `svc_sk_...`, is taken as " +
      "one). The platform signs it HS256 with the app's secret: `aud` the app's API key, `dest` the shop's " +
      "domain, `sub` the logged-in customer (`gid://shopify/Customer/<id>`), `exp` and `nbf`. The customer comes " +
      "from `sub` only: `customerId` in a request is a 403 and an anonymous id is ignored; a token without a " +
      "customer, expired, for another app, or that does not verify is a 401. Operations on the customer's own " +
      "lists and items only; CORS is granted to any origin, as the platform's extensions need.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "appProxy", {
    type: "apiKey",
    in: "query",
    name: "signature",
    description:
      "Accepted only under `/proxy/v1` (not on the `/v1` server): the operations marked `x-app-proxy: true` (the " +
      "storefront ones) are also served there, with this scheme instead of a key. " +
      "The platform's app proxy signature (HMAC-SHA256 of the sorted query with the app secret, with `timestamp`, " +
      "`shop` and `logged_in_customer_id`). Theme code calls `/apps/service/v1/...` on the shop's domain; the " +
      "platform signs and forwards to `/proxy/v1/...`. An empty `logged_in_customer_id` is a guest; a signed one " +
      "that is not a customer id (digits) is refused with 401.",
  });
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Wishlist service API",
      version: "1.0.0",
      description: DESCRIPTION.replace("{{PROBLEMS}}", problems),
    },
    servers: [{ url: `${baseUrl}/v1`, description: "This deployment" }],
    tags: [
      {
        name: "Storefront",
        description:
          "Shopper endpoints: private key, public key and app proxy; those on the shopper's own lists and items " +
          "also the customer account session token",
      },
      { name: "Shop", description: "Shop overview and settings" },
      { name: "API keys", description: "Private keys: shown once, revocable" },
      { name: "Lists", description: "Browse the shop's wishlists" },
      {
        name: "Analytics",
        description:
          "Top products and daily activity; what wishlists sold (orders matched to saves: the conversions and " +
          "demand reports, and the conversions with their order ids)",
      },
      {
        name: "Webhooks",
        description:
          "Signed event deliveries to the shop's endpoints. At least once (deduplicate by event `id`), not in " +
          "order. Each attempt: POST of the envelope, 10 s timeout, any 2xx delivers, redirects not followed. " +
          "A failed attempt is retried 5 times after 1, 4.36, 18.97, 82.65 and 360 minutes (each +/-10% " +
          "jitter). A delivery fails when its last attempt fails; 20 consecutive failed deliveries disable the " +
          "endpoint, so a receiver that is down for a while gets the retries. Signature: `X-Service-Signature: " +
          't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with the endpoint secret; verify ' +
          "over the raw bytes, in constant time, with a 300 s tolerance (docs/webhooks.md).",
      },
      {
        name: "Privacy",
        description:
          "The platform's compliance requests about the shop's customers: data requests answered with a file of " +
          "the customer's wishlist data. Redactions erase the customer's lists, items and share links and take " +
          "their id out of stored events and delivery logs (docs/privacy.md).",
      },
    ],
  });
}
