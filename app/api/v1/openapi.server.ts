import type { OpenAPIHono } from "@hono/zod-openapi";
import { PROBLEM_TYPES, problemTypeUrl, type ProblemSlug } from "~/lib/problems";
import type { V1Env } from "./context";

const DESCRIPTION = `
The wishlist service API, version 1. Every path lies under \`/v1\`; changes within v1 are additive only.

**Calling modes.** *Private key* (server): \`Authorization: Bearer svc_sk_...\`, full shop scope.
*Public key* (browser): \`X-Service-Shop\` and \`X-Service-Public-Key: svc_pk_...\`, storefront endpoints only,
anonymous scope only; CORS is granted to the shop's \`settings.headlessOrigins\`. *App proxy* (theme code):
requests to \`https://<shop>/apps/service/v1/storefront/...\` that the platform signs and forwards; the
customer comes from the signed \`logged_in_customer_id\`.

**Errors** are RFC 9457 problem documents (\`application/problem+json\`); branch on \`type\`. Types:
{{PROBLEMS}}

**Pagination**: opaque \`cursor\` and \`limit\` (1-100, default 50); \`pageInfo.nextCursor\` is null at the end.

**Idempotency**: any POST may carry \`Idempotency-Key\` (1-255 visible ASCII characters). Within 24 hours a
retry with the same key (same shop and credential) returns the original status and body with
\`Idempotent-Replayed: true\` and repeats nothing; the same key with a different request is a 422
\`idempotency-key-reused\`; a retry while the first is still running is a 409 \`idempotency-key-in-use\`.
Server errors (5xx) release the key.

**Rate limits**: 600 requests a minute per shop on private endpoints (bucket \`shop\`), 60 a minute per
shopper on \`/v1/storefront/*\` (bucket \`shopper\`: the customer, else the anonymous id, else the client
address). Every response carries \`X-RateLimit-Limit-<Bucket>\`, \`X-RateLimit-Remaining-<Bucket>\` and
\`X-RateLimit-Reset-<Bucket>\` (seconds until the window resets; \`<Bucket>\` is \`Shop\` or \`Shopper\`), and the
IETF fields \`RateLimit-Policy: "shop";q=600;w=60\` and \`RateLimit: "shop";r=<remaining>;t=<seconds>\`. Over
the limit: 429 \`rate-limited\` with \`Retry-After\`.

**Deprecation**: a deprecated operation is marked \`deprecated\` here and answers with \`Deprecation: @<unix
time>\`, \`Sunset: <HTTP date>\` when it has an end date, and \`Link: <changelog>; rel="deprecation"\`, at
least 90 days ahead.

**Conventions**: service ids carry a type prefix (\`lst_\`, \`itm_\`, \`evt_\`, \`key_\`, ...) and a wrong prefix is a
400 \`invalid-id\`; platform ids are decimal strings; timestamps are ISO-8601 UTC with milliseconds and Z.
Every response carries \`X-Request-Id\`.
`;

export function buildOpenApiDocument(app: OpenAPIHono<V1Env>, baseUrl: string) {
  const problems = (Object.keys(PROBLEM_TYPES) as ProblemSlug[])
    .map((slug) => `\`${problemTypeUrl(baseUrl, slug)}\` (${PROBLEM_TYPES[slug].status}, ${PROBLEM_TYPES[slug].title})`)
    .join("; ");
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
  app.openAPIRegistry.registerComponent("securitySchemes", "appProxy", {
    type: "apiKey",
    in: "query",
    name: "signature",
    description:
      "The platform's app proxy signature (HMAC-SHA256 of the sorted query with the app secret, with `timestamp`, " +
      "`shop` and `logged_in_customer_id`). Theme code calls `/apps/service/v1/...` on the shop's domain; the " +
      "platform signs and forwards to `/proxy/v1/...`.",
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
      { name: "Storefront", description: "Shopper endpoints: all three calling modes" },
      { name: "Shop", description: "Shop overview and settings" },
      { name: "API keys", description: "Private keys: shown once, revocable" },
      { name: "Lists", description: "Browse the shop's wishlists" },
      { name: "Analytics", description: "Top products and daily activity" },
      {
        name: "Webhooks",
        description:
          "Signed event deliveries to the shop's endpoints. At least once (deduplicate by event `id`), not in " +
          "order. Each attempt: POST of the envelope, 10 s timeout, any 2xx delivers, redirects not followed. " +
          "A failed attempt is retried 5 times after 1, 4.36, 18.97, 82.65 and 360 minutes (each +/-10% " +
          "jitter); 20 consecutive failed attempts disable the endpoint. Signature: `X-Service-Signature: " +
          't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with the endpoint secret; verify ' +
          "over the raw bytes, in constant time, with a 300 s tolerance (docs/webhooks.md).",
      },
    ],
  });
}
