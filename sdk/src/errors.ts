/** An RFC 9457 problem document, as every error of the API is answered. */
export interface Problem {
  /** Stable URL of the problem type, e.g. `https://wishlist.example/problems/list-full`. */
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  /** Which fields or parameters were wrong (validation errors). */
  errors?: Array<{ pointer?: string; parameter?: string; detail: string }>;
  [member: string]: unknown;
}

/**
 * The problem types the API documents: the last segment of `type`. Branch on `error.code` (or on `error.type`),
 * never on `title` or `detail`, which are for people. The list is open: a newer server may answer a code this
 * version does not know.
 */
export type ProblemCode =
  | "bad-request"
  | "malformed-json"
  | "body-required"
  | "invalid-parameter"
  | "invalid-id"
  | "invalid-cursor"
  | "ambiguous-shopper"
  | "unauthorized"
  | "forbidden"
  | "plan-required"
  | "shop-uninstalled"
  | "guest-wishlists-disabled"
  | "sharing-disabled"
  | "multiple-lists-disabled"
  | "not-found"
  | "method-not-allowed"
  | "conflict"
  | "list-full"
  | "list-name-taken"
  | "too-many-lists"
  | "default-list"
  | "item-in-list"
  | "idempotency-key-in-use"
  | "platform-not-connected"
  | "payload-too-large"
  | "unsupported-media-type"
  | "validation-error"
  | "idempotency-key-reused"
  | "rate-limited"
  | "internal-error"
  | "platform-unavailable"
  | "service-unavailable"
  | (string & {});

/** An answer of the API that is not a success: its problem document, status and request id. */
export class WishlistApiError extends Error {
  override readonly name = "WishlistApiError";
  readonly problem: Problem;
  readonly status: number;
  /** The problem type's URL (`problem.type`). */
  readonly type: string;
  /** The problem type's last segment: `list-full`, `rate-limited`, ... */
  readonly code: ProblemCode;
  /** The `X-Request-Id` of the answer: quote it to support. */
  readonly requestId: string | null;
  /** Seconds the server asked to wait (`Retry-After`), when it did. */
  readonly retryAfter: number | null;

  constructor(problem: Problem, response: Response) {
    super(`${problem.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ""}`);
    this.problem = problem;
    this.status = problem.status;
    this.type = problem.type;
    this.code = problem.type.slice(problem.type.lastIndexOf("/") + 1);
    this.requestId = response.headers.get("X-Request-Id");
    this.retryAfter = retryAfterSeconds(response.headers.get("Retry-After"));
  }
}

/** True for an error of the API with this code: `if (isProblem(error, "list-full")) ...`. */
export function isProblem(error: unknown, code?: ProblemCode): error is WishlistApiError {
  return error instanceof WishlistApiError && (code === undefined || error.code === code);
}

/** Builds the error of a response that is not a success (one without a problem document gets a generic one). */
export async function errorOf(response: Response): Promise<WishlistApiError> {
  let problem: Problem | undefined;
  try {
    const body = (await response.clone().json()) as Partial<Problem>;
    if (typeof body?.type === "string" && typeof body.title === "string") {
      problem = { ...body, status: response.status } as Problem;
    }
  } catch {
    // not JSON: below
  }
  return new WishlistApiError(
    problem ?? {
      type: "about:blank",
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
    },
    response,
  );
}

/**
 * `Retry-After` in seconds (a number of seconds or an HTTP date); null when absent or unreadable. An HTTP date
 * starts with the day's name: `Date.parse` also reads `-1`, `1.5` or two headers joined (`10, 20`) as days of
 * 2001, which would be a wait of 0, a retry at once.
 */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | null {
  const value = header?.trim() ?? "";
  if (/^\d+$/.test(value)) return Number(value);
  if (!/^[A-Za-z]{3}/.test(value)) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
