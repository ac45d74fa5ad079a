// Imported through @hono/zod-openapi so these schemas carry .openapi() (zod 4 adds methods per instance).
import { z } from "@hono/zod-openapi";
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

export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw bodyProblem(result.error.issues);
}

export function parseParameters<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw parameterProblem(result.error.issues);
}

/** 64-bit platform ids travel as decimal strings; integers up to 2^53-1 are accepted and normalised. */
export const platformIdSchema = z
  .union([
    z.string().regex(/^\d{1,20}$/, "must be a string of decimal digits"),
    z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  ])
  .transform((value) => String(value));

/** Cursor pagination parameters (spec 8): `limit` 1-100, default 50; `cursor` a non-empty string. */
export const pageParamsSchema = z.object({
  cursor: z.string().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
export type PageParams = z.output<typeof pageParamsSchema>;
