// Imported through @hono/zod-openapi so these schemas carry .openapi() (zod 4 adds methods per instance).
import { z } from "@hono/zod-openapi";
import { SOURCES } from "./columns";
import { UPLOAD_CONTENT_TYPES } from "./limits";

/**
 * What a caller sends to start each step of an import or an export (docs/imports.md): the /v1 API's request
 * bodies and the admin pages' forms are parsed with these same schemas.
 */

export const uploadRequestSchema = z
  .object({
    filename: z
      .string()
      .min(1)
      .max(255)
      .refine(
        (name) => ![...name].some((char) => char.charCodeAt(0) < 32 || char === "/" || char === "\\"),
        "no control characters or slashes",
      ),
    contentType: z.enum(UPLOAD_CONTENT_TYPES),
  })
  .strict();

export const importRequestSchema = z
  .object({
    source: z.enum(SOURCES),
    fileUrl: z.string().min(1).max(2_048),
    dryRun: z.boolean().default(false),
  })
  .strict();

export const exportRequestSchema = z.object({ format: z.enum(["csv"]) }).strict();
