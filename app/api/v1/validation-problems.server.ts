/**
 * Request validation as problems (docs/decisions/007-api-layer.md): zod's issues with a body become a 422
 * pointing at each member, with parameters a 400 naming each; an operation whose body is required refuses
 * none at all. The wording of a missing value is app/lib/zod-messages.ts's, loaded here for its effect.
 */
import type { z } from "@hono/zod-openapi";
import "~/lib/zod-messages";
import { AppError, type ProblemFieldError } from "~/lib/problems";
import { jsonPointer } from "../json-pointer";

/** Body issues: 422 with one `{pointer, detail}` per issue. */
export function bodyProblem(issues: ReadonlyArray<z.core.$ZodIssue>): AppError {
  const errors: ProblemFieldError[] = issues.map((issue) => ({
    pointer: jsonPointer(issue.path),
    detail: issue.message,
  }));
  return new AppError("validation-error", {
    detail: `The request body has ${errors.length} invalid member${errors.length === 1 ? "" : "s"}.`,
    errors,
  });
}

/** Query, path or header issues (zod's, or the routes' own): 400 with one `{parameter, detail}` per issue. */
export function parameterProblem(issues: ReadonlyArray<Pick<z.core.$ZodIssue, "path" | "message">>): AppError {
  const errors: ProblemFieldError[] = issues.map((issue) => ({
    parameter: issue.path.map(String).join(".") || "(request)",
    detail: issue.message,
  }));
  return new AppError("invalid-parameter", {
    detail: errors.map((error) => `${error.parameter}: ${error.detail}`).join("; "),
    errors,
  });
}

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
