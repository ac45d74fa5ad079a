/**
 * The edge between the domain's errors and HTTP: each DomainError code has one problem type
 * (app/lib/problems.ts, documented in the OpenAPI description), and an issue's dotted field path becomes a
 * JSON Pointer into the request body.
 */
import { isDatabaseBusy, isDatabaseUnavailable } from "~/data/database.server";
import { DomainError, type DomainErrorCode } from "~/lib/domain-error";
import { AppError, type ProblemSlug } from "~/lib/problems";
import { jsonPointer } from "./json-pointer";

const PROBLEM_OF: Record<DomainErrorCode, ProblemSlug> = {
  not_found: "not-found",
  conflict: "conflict",
  invalid: "validation-error",
  too_large: "payload-too-large",
  file_expired: "file-expired",
  event_redacted: "event-redacted",
  list_full: "list-full",
  list_name_taken: "list-name-taken",
  too_many_lists: "too-many-lists",
  default_list: "default-list",
  item_in_list: "item-in-list",
  multiple_lists_disabled: "multiple-lists-disabled",
  sharing_disabled: "sharing-disabled",
  guest_lists_disabled: "guest-wishlists-disabled",
  shop_uninstalled: "shop-uninstalled",
  plan_required: "plan-required",
  idempotency_key_reused: "idempotency-key-reused",
  idempotency_key_in_use: "idempotency-key-in-use",
  platform_not_connected: "platform-not-connected",
  platform_unavailable: "platform-unavailable",
  unavailable: "service-unavailable",
};

/** An issue's dotted field path as a pointer into the body: "items.2.productId" -> "#/items/2/productId". */
function bodyPointer(field: string): string {
  return jsonPointer(field === "" ? [] : field.split("."));
}

export function problemOfDomainError(error: DomainError): AppError {
  return new AppError(PROBLEM_OF[error.code], {
    detail: error.message,
    ...(error.issues
      ? { errors: error.issues.map((issue) => ({ pointer: bodyPointer(issue.field), detail: issue.message })) }
      : {}),
    ...(error.retryAfterSeconds !== undefined ? { headers: { "Retry-After": String(error.retryAfterSeconds) } } : {}),
    extensions: error.details,
    cause: error,
  });
}

/**
 * What a 503 says when the database could not be used, and how long it asks to wait: every connection of
 * the process was in use (busy, soon over), or the database cannot be used at all (as /readyz says then).
 */
function databaseTrouble(error: unknown): { what: string; retryAfterSeconds: number } | null {
  if (isDatabaseBusy(error)) {
    return { what: "The service is busy: no database connection became free in time.", retryAfterSeconds: 2 };
  }
  if (isDatabaseUnavailable(error)) return { what: "The database cannot be reached.", retryAfterSeconds: 5 };
  return null;
}

/**
 * Any thrown value as the AppError the API answers with: a domain error as its problem, a database that
 * cannot be used at all (down, restarting) or had no connection free in time as a 503 saying which, with
 * Retry-After; unknown errors pass through to become a 500.
 */
export function asAppError(error: unknown): unknown {
  if (error instanceof AppError) return error;
  if (error instanceof DomainError) return problemOfDomainError(error);
  const trouble = databaseTrouble(error);
  if (trouble) {
    return new AppError("service-unavailable", {
      detail:
        `${trouble.what} Retry after the Retry-After delay; a POST retried with the same Idempotency-Key makes ` +
        "its change at most once.",
      headers: { "Retry-After": String(trouble.retryAfterSeconds) },
      cause: error,
    });
  }
  return error;
}
