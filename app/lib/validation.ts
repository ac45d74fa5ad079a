import { z } from "zod";
import "./zod-messages";
import { canonicalPlatformId, MAX_PLATFORM_ID } from "./ids";

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

/**
 * `limit`: 1-100, default 50, written in decimal digits only, so `1e1`, `0x10` or `10.0` are
 * refused rather than read as numbers.
 */
const limitSchema = z
  .union([z.string().regex(/^[0-9]{1,3}$/, "must be an integer from 1 to 100 in decimal digits"), z.number()])
  .transform((value) => Number(value))
  .pipe(z.number().int().min(1).max(100))
  .default(50)
  // Documented as the integer it stands for (zod's `.meta`, read by the OpenAPI generator: no HTTP here).
  .meta({ type: "integer", minimum: 1, maximum: 100, default: 50 });

/** Cursor pagination parameters (the OpenAPI description's pagination parameters): `limit` 1-100, default 50; `cursor` a non-empty string. */
export const pageParamsSchema = z.object({
  cursor: z.string().min(1).optional(),
  limit: limitSchema,
});
export type PageParams = z.output<typeof pageParamsSchema>;
