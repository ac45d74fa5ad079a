/**
 * The errors services throw: transport-neutral, a code and details (docs/decisions/017-data-layer.md).
 * The API maps a code to its problem document at the edge (app/api/domain-problems.server.ts); the
 * worker maps it to a job outcome. Nothing under app/services/ knows an HTTP status.
 */

export const DOMAIN_ERROR_CODES = [
  /** The thing named does not exist in this shop. */
  "not_found",
  /** The change contradicts the current state (a duplicate, a state that does not allow it). */
  "conflict",
  /** The input is well-formed but its content is wrong; `issues` says where. */
  "invalid",
  /** The input is over a size limit; `details.maxBytes` gives it. */
  "too_large",
  /** The stored file named was deleted after its retention period (FILE_RETENTION_DAYS). */
  "file_expired",
  /** The event named a customer a customers/redact erased: it is not sent again. */
  "event_redacted",
  /** The list holds the most items a list may hold; `details.maxItems` gives it. */
  "list_full",
  /** The owner has a list of that name already (compared ignoring case). */
  "list_name_taken",
  /** The owner keeps the most lists the shop allows; `details.maxLists` gives it. */
  "too_many_lists",
  /** The change is not allowed on an owner's default list (deleting it). */
  "default_list",
  /** The list a move or copy names holds the product already; `details.itemId` names its item. */
  "item_in_list",
  /** The shop does not let shoppers keep named lists (settings.multipleLists false). */
  "multiple_lists_disabled",
  "sharing_disabled",
  "guest_lists_disabled",
  "shop_uninstalled",
  /** The shop's plan lacks the feature; `details.plan` names the cheapest plan that has it. */
  "plan_required",
  "idempotency_key_reused",
  "idempotency_key_in_use",
  /** The shop has no working access to the platform's Admin API (no session, a refused token). */
  "platform_not_connected",
  /** The platform's Admin API did not answer usefully; `transient` says whether asking later may work. */
  "platform_unavailable",
  /** A dependency (the database) is too busy or down; nothing was changed; `retryAfterSeconds` says when. */
  "unavailable",
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

/** One wrong input: `field` is the dotted path of the member in the service's input ("items.2.productId"). */
export interface DomainIssue {
  field: string;
  message: string;
}

export interface DomainErrorOptions {
  issues?: DomainIssue[];
  /** Facts a caller may act on (`maxItems`, `maxBytes`): the API passes them on as problem extensions. */
  details?: Record<string, unknown>;
  retryAfterSeconds?: number;
  /** Whether the same request may succeed later without a change (the worker retries these). */
  transient?: boolean;
  cause?: unknown;
}

export class DomainError extends Error {
  readonly issues: DomainIssue[] | undefined;
  readonly details: Record<string, unknown>;
  readonly retryAfterSeconds: number | undefined;
  readonly transient: boolean;

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "DomainError";
    this.issues = options.issues;
    this.details = options.details ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.transient = options.transient ?? code === "unavailable";
  }
}

export function isDomainError(error: unknown, code?: DomainErrorCode): error is DomainError {
  return error instanceof DomainError && (code === undefined || error.code === code);
}
