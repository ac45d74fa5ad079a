import { z } from "@hono/zod-openapi";
import { ID_PREFIXES, idPattern, type IdKind } from "~/lib/ids";
import { ProblemSchema } from "./schemas";

/**
 * The shapes every route definition repeats, written once: a JSON response or body, and a path parameter
 * holding a service id (its prefix is checked by `parseId`, a wrong one is 400 `invalid-id`).
 */
export function jsonResponse<S extends z.ZodType>(description: string, schema: S) {
  return { description, content: { "application/json": { schema } } };
}

export function jsonBody<S extends z.ZodType>(schema: S, { required = true }: { required?: boolean } = {}) {
  return { required, content: { "application/json": { schema } } };
}

/** The kind of id each path parameter made by `idParameter` holds (apiRoute checks them first). */
export const PATH_ID_KINDS = new WeakMap<z.ZodType, IdKind>();

/** A path parameter `name` holding an id of `kind`, documented with its pattern and an example. */
export function idParameter(name: string, kind: IdKind) {
  const schema = z.string().openapi({
    param: { name, in: "path" },
    pattern: idPattern(kind),
    example: `${ID_PREFIXES[kind]}_01jd2x6c5ef0q8w3d0s8b2n7k4`,
  });
  PATH_ID_KINDS.set(schema, kind);
  return schema;
}

/** An error response: a problem document (RFC 9457), described for this operation. */
export function problemAnswer(description: string, schema: z.ZodType = ProblemSchema) {
  return { description, content: { "application/problem+json": { schema } } };
}
