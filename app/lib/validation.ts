// Imported through @hono/zod-openapi so these schemas carry .openapi() (zod 4 adds methods per instance).
import { z } from "@hono/zod-openapi";
import "./zod-messages";
import { canonicalPlatformId, MAX_PLATFORM_ID, parsePlatformId, type PlatformResource } from "./ids";
import { AppError, type ProblemFieldError } from "./problems";

/** JSON Pointer (RFC 6901) in URI fragment form for a zod issue path. */
export function toJsonPointer(path: ReadonlyArray<PropertyKey>): string {
  const escaped = path.map((segment) => String(segment).replace(/~/g, "~0").replace(/\//g, "~1"));
  return `#/${escaped.join("/")}`;
}

/** Body issues: 422 with one `{pointer, detail}` per issue. */
export function bodyProblem(issues: ReadonlyArray<z.core.$ZodIssue>): AppError {
  const errors: ProblemFieldError[] = issues.map((issue) => ({
    pointer: issue.path.length ? toJsonPointer(issue.path) : "#",
    detail: issue.message,
  }));
  return new AppError("validation-error", {
    detail: `The request body has ${errors.length} invalid member${errors.length === 1 ? "" : "s"}.`,
    errors,
  });
}

/** Query, path or header issues: 400 with one `{parameter, detail}` per issue. */
export function parameterProblem(issues: ReadonlyArray<z.core.$ZodIssue>): AppError {
  const errors: ProblemFieldError[] = issues.map((issue) => ({
    parameter: issue.path.map(String).join(".") || "(request)",
    detail: issue.message,
  }));
  return new AppError("invalid-parameter", {
    detail: errors.map((error) => `${error.parameter}: ${error.detail}`).join("; "),
    errors,
  });
}

const TOO_LARGE = `must be at most ${MAX_PLATFORM_ID} (64 bits)`;

/**
 * 64-bit platform ids (customerId, productId, variantId): a string of decimal digits, or an integer 0 to
 * 2^53-1 (JSON numbers beyond that lose precision). Out comes the canonical decimal string of
 * `canonicalPlatformId` ("0123" -> "123"); no sign, exponent, hex or empty string.
 */
export const platformIdSchema = z
  .union([
    z.string().regex(/^[0-9]{1,20}$/, "must be a string of decimal digits"),
    z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  ])
  .transform((value, ctx) => {
    const id = canonicalPlatformId(String(value));
    if (id === null) {
      ctx.addIssue({ code: "custom", message: TOO_LARGE, input: value });
      return z.NEVER;
    }
    return id;
  });

/** The JSON Schema forms `platformIdInputSchema` takes (a nullable member adds `{ type: "null" }`). */
export function platformIdInputForms(resource: PlatformResource) {
  return [
    { type: "string" as const, pattern: `^(?:gid://shopify/${resource}/)?[0-9]{1,20}$` },
    { type: "integer" as const, minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  ];
}

/**
 * A platform id of `resource` as the storefront sends it: what `platformIdSchema` takes, or the resource's GID
 * (`gid://shopify/Product/123`, as themes hold them). Documented as a string with its pattern.
 */
export function platformIdInputSchema(resource: PlatformResource) {
  return z
    .union([z.string(), z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)])
    .transform((value, ctx) => {
      const id = parsePlatformId(String(value), resource);
      if (id === null) {
        ctx.addIssue({
          code: "custom",
          message: `must be decimal digits or gid://shopify/${resource}/<digits>, at most ${MAX_PLATFORM_ID}`,
          input: value,
        });
        return z.NEVER;
      }
      return id;
    })
    .openapi({
      // What the server takes, exactly: a generated client may send either form (issue 25).
      anyOf: platformIdInputForms(resource),
      description: `Decimal digits (at most 2^64-1) or gid://shopify/${resource}/<digits>; an integer up to 2^53-1 is also taken.`,
    });
}

/**
 * `limit`: 1-100, default 50, written in decimal digits only, so `1e1`, `0x10` or `10.0` are
 * refused rather than read as numbers.
 */
const limitSchema = z
  .union([z.string().regex(/^[0-9]{1,3}$/, "must be an integer from 1 to 100 in decimal digits"), z.number()])
  .transform((value) => Number(value))
  .pipe(z.number().int().min(1).max(100))
  .default(50)
  .openapi({ type: "integer", minimum: 1, maximum: 100, default: 50 });

/** Cursor pagination parameters (the OpenAPI description's pagination parameters): `limit` 1-100, default 50; `cursor` a non-empty string. */
export const pageParamsSchema = z.object({
  cursor: z.string().min(1).optional(),
  limit: limitSchema,
});
export type PageParams = z.output<typeof pageParamsSchema>;

/**
 * Operations whose JSON body is required even when it names nothing (DELETE /v1/storefront/wishlist/items,
 * PATCH /v1/shop/settings; see docs/openapi.json) refuse a request without one: 400 `body-required`. `{}` is a
 * body. `text` is the raw body as received.
 */
export function requireBodySent(text: string): void {
  if (text.trim().length > 0) return;
  throw new AppError("body-required", {
    detail:
      "This operation requires a JSON body (send `{}` when no member is needed), with Content-Type: application/json.",
  });
}
