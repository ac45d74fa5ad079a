import { z } from "@hono/zod-openapi";
import { MAX_PLATFORM_ID, parsePlatformId, type PlatformResource } from "~/lib/ids";

/** The JSON Schema forms `platformIdInputSchema` takes (a nullable member adds `{ type: "null" }`). */
export function platformIdInputForms(resource: PlatformResource) {
  return [
    { type: "string" as const, pattern: `^(?:gid://shopify/${resource}/)?[0-9]{1,20}$` },
    { type: "integer" as const, minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  ];
}

/**
 * A platform id of `resource` as the storefront sends it: what `platformIdSchema` (app/lib/validation.ts)
 * takes, or the resource's GID (`gid://shopify/Product/123`, as themes hold them). Documented as a string with
 * its pattern.
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
