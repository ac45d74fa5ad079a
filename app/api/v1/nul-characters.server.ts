import type { MiddlewareHandler } from "hono";
import { AppError, type ProblemFieldError } from "~/lib/problems";
import { jsonPointer } from "../json-pointer";
import type { V1Env } from "./context";

/**
 * No text the API takes may hold a NUL character (U+0000): PostgreSQL cannot store one in a text column
 * (SQLite can), so each would otherwise reach the database and fail there. Refused at the edge, the same on
 * both engines, with the route's validation (docs/decisions/007-api-layer.md): a path or query parameter
 * (name or value) is a 400 `invalid-parameter` naming it, a JSON body member (name or value, at any depth,
 * members a route ignores included) a 422 `validation-error` with its JSON Pointer.
 */
const NUL = "\u0000";
const DETAIL = "must not contain NUL characters (U+0000)";
/** Enough to show what is wrong without echoing a whole body of them. */
const MAX_REPORTED = 20;

export const refuseNulCharacters: MiddlewareHandler<V1Env> = async (c, next) => {
  const parameters: ProblemFieldError[] = [];
  const named = [...Object.entries(c.req.param() as Record<string, string>), ...new URL(c.req.url).searchParams];
  for (const [name, value] of named) {
    if ((name.includes(NUL) || value.includes(NUL)) && parameters.length < MAX_REPORTED) {
      parameters.push({ parameter: name, detail: DETAIL });
    }
  }
  if (parameters.length > 0) {
    throw new AppError("invalid-parameter", {
      detail: `${parameters.map((error) => error.parameter).join(", ")}: ${DETAIL}.`,
      errors: parameters,
    });
  }
  const members: ProblemFieldError[] = [];
  collectNulMembers(c.get("jsonBody"), members);
  if (members.length > 0) {
    throw new AppError("validation-error", {
      detail: `The request body has ${members.length === 1 ? "a member" : "members"} with NUL characters (U+0000).`,
      errors: members,
    });
  }
  await next();
};

interface Visit {
  value: unknown;
  name: string | null;
  parent: Visit | null;
}

function pointerOf(visit: Visit): string {
  const path: string[] = [];
  for (let at: Visit | null = visit; at?.name != null; at = at.parent) path.unshift(at.name);
  return jsonPointer(path);
}

/**
 * Walks the body in document order with a stack of its own: a body may nest deeper than the call stack
 * goes. A member whose name holds a NUL is reported by its name, its value not looked into.
 */
function collectNulMembers(body: unknown, found: ProblemFieldError[]): void {
  const pending: Visit[] = [{ value: body, name: null, parent: null }];
  while (pending.length > 0 && found.length < MAX_REPORTED) {
    const visit = pending.pop()!;
    const { value } = visit;
    if (typeof value === "string") {
      if (value.includes(NUL)) found.push({ pointer: pointerOf(visit), detail: DETAIL });
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    const entries: Array<[string, unknown]> = Array.isArray(value)
      ? value.map((entry, index) => [String(index), entry])
      : Object.entries(value);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [name, entry] = entries[index]!;
      pending.push({ value: name.includes(NUL) ? NUL : entry, name, parent: visit });
    }
  }
}
