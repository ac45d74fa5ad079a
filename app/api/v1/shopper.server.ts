/**
 * Who a storefront request acts for, resolved once per request and kept in the context (`shopperOf`): the
 * one place that applies the proxy/public/private rules (decision 010, docs/decisions/038-shopper-resolution.md).
 * Two outcomes come out of the one reading of the request:
 *  - `key`: the shopper the request names first, as one key (`ownerKey` of services/owners/owner.ts), or null
 *    when it names nobody well formed. The per-shopper rate limit and the scope of Idempotency-Key records
 *    use it (docs/decisions/008-rate-limit-keys.md). They run before the route's validation (a request that
 *    fails it still counts), so a malformed member names nobody here rather than failing the request;
 *  - `owner(missingIn)`: the strict outcome the routes act on: the same shopper when the request names exactly
 *    one, well formed and allowed to this caller, else the problem the route raises.
 * The shopper is named, in order of precedence:
 *  - app proxy: the platform-signed customer id, else the anonymous id;
 *  - customer account session token: the platform-signed customer only (an anonymous id is ignored, as for the
 *    proxy's logged-in customer; `customerId` is a 403: the token names its customer);
 *  - public key: the anonymous id only (a public key never acts as a customer: `customerId` is a 403);
 *  - private key: the customer named by `customerId`, else the anonymous id (naming both is a 400).
 * The anonymous id is the `aid` query parameter or the `anonymousId` body member, the customer id the
 * `customerId` of either; both places may be used when they agree. Values are read by the routes' own
 * schemas (below), from the JSON body parsed once (`jsonBody`, body.server.ts).
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError } from "~/lib/problems";
import { ANONYMOUS_ID_PATTERN, ownerKey, type Owner } from "~/services/owners/owner";
import type { Caller, Shopper, V1Env } from "./context";
import { platformIdInputSchema } from "./platform-id-input";
import { bodyProblem, parameterProblem } from "./validation-problems.server";

export const anonymousIdSchema = z
  .string()
  .regex(ANONYMOUS_ID_PATTERN, "must be a UUID (versions 1-8, or the nil or max UUID)")
  .transform((value) => value.toLowerCase())
  .openapi({ format: "uuid", example: "5b0e8bde-59ad-4f02-9a4d-1d2a5c3e3c11" });

export const customerIdSchema = platformIdInputSchema("Customer");

/** The body members that name the shopper (storefront bodies). */
export const OwnerInput = {
  anonymousId: anonymousIdSchema.optional().openapi({
    description: "The guest's anonymous id (public-key and app proxy guests; ignored for a logged-in customer).",
  }),
  customerId: customerIdSchema.optional().openapi({
    description:
      "Private-key calls only: the customer whose list to change (or send anonymousId; naming both is a 400 " +
      "`ambiguous-shopper`).",
  }),
};

/** The query parameters that name the shopper. */
export const OwnerQuery = z.object({
  aid: anonymousIdSchema.optional().openapi({ description: "Anonymous id (ignored for a logged-in customer)." }),
  customerId: customerIdSchema.optional().openapi({ description: "Private-key calls only." }),
});

/** One member naming the shopper: where it was sent, under which name, and its value or why it is malformed. */
interface Member {
  name: string;
  in: "query" | "body";
  parsed: z.ZodSafeParseResult<string>;
}

/** The members naming a guest and a customer: in the query first, then in the body. */
interface Named {
  anonymous: Member[];
  customer: Member[];
}

/** The request's shopper, resolved at the first call and kept in the context. */
export function shopperOf(c: Context<V1Env>): Shopper {
  let shopper = c.get("shopper");
  if (shopper === undefined) {
    shopper = resolveShopper(c.get("caller"), namedIn(c));
    c.set("shopper", shopper);
  }
  return shopper;
}

function namedIn(c: Context<V1Env>): Named {
  const body = c.get("jsonBody");
  const members = (schema: z.ZodType<string>, inQuery: string, inBody: string): Member[] => {
    const sent: Member[] = [];
    const query = c.req.query(inQuery);
    if (query !== undefined) sent.push({ name: inQuery, in: "query", parsed: schema.safeParse(query) });
    if (typeof body === "object" && body !== null && !Array.isArray(body) && Object.hasOwn(body, inBody)) {
      const value = (body as Record<string, unknown>)[inBody];
      sent.push({ name: inBody, in: "body", parsed: schema.safeParse(value) });
    }
    return sent;
  };
  return {
    anonymous: members(anonymousIdSchema, "aid", "anonymousId"),
    customer: members(customerIdSchema, "customerId", "customerId"),
  };
}

const valueOf = (members: Member[]) => members.find((member) => member.parsed.success)?.parsed.data;

function resolveShopper(caller: Caller, named: Named): Shopper {
  const signedCustomer = caller.mode === "proxy" || caller.mode === "customerAccount" ? caller.customerId : null;
  const customerId = signedCustomer ?? (caller.mode === "private" ? valueOf(named.customer) : undefined);
  const anonymousId = valueOf(named.anonymous);
  const first: Owner | null = customerId
    ? { kind: "customer", customerId }
    : anonymousId
      ? { kind: "anonymous", anonymousId }
      : null;
  return {
    key: first && ownerKey(first),
    owner(missingIn) {
      const problem = namingProblem(caller, named);
      if (problem) throw problem;
      if (first) return first;
      throw missingShopper(caller, missingIn);
    },
  };
}

/** What is wrong with how the shopper was named, in the order the checks apply; null when nothing is. */
function namingProblem(caller: Caller, named: Named): AppError | null {
  const malformed = [...named.anonymous, ...named.customer].find((member) => !member.parsed.success);
  if (malformed && !malformed.parsed.success) {
    const issues = malformed.parsed.error.issues.map((issue) => ({ ...issue, path: [malformed.name, ...issue.path] }));
    return malformed.in === "query" ? parameterProblem(issues) : bodyProblem(issues);
  }
  const conflict = disagreement("aid", named.anonymous) ?? disagreement("customerId", named.customer);
  if (conflict) return conflict;
  const namesCustomer = named.customer.length > 0;
  if (caller.mode === "public" && namesCustomer) {
    return new AppError("forbidden", { detail: "Public keys act for anonymous shoppers only; customerId is refused." });
  }
  if (caller.mode === "customerAccount" && namesCustomer) {
    return new AppError("forbidden", {
      detail: "A customer account session token acts for the customer it names; customerId is refused.",
    });
  }
  if (caller.mode === "private" && namesCustomer && named.anonymous.length > 0) return ambiguousShopper(named);
  return null;
}

/** The query and the body naming two different guests (or customers): a 400 naming the query's parameter. */
function disagreement(parameter: string, members: Member[]): AppError | null {
  const values = new Set(members.map((member) => member.parsed.data));
  if (values.size < 2) return null;
  const detail = `The query's ${parameter} and the body name different shoppers; send one of them.`;
  return new AppError("invalid-parameter", { detail, errors: [{ parameter, detail }] });
}

/**
 * A customer and a guest named in one request: the same 400 on every storefront operation, whether they came
 * in the query or the body, each pointed at where it was sent.
 */
function ambiguousShopper(named: Named): AppError {
  const detail = "Name one shopper: customerId for a customer, or the guest's anonymous id, not both.";
  const errors = [...named.customer, ...named.anonymous].map((member) =>
    member.in === "query" ? { parameter: member.name, detail } : { pointer: `#/${member.name}`, detail },
  );
  return new AppError("ambiguous-shopper", { detail, errors });
}

function missingShopper(caller: Caller, missingIn: "query" | "body"): AppError {
  const field = missingIn === "query" ? "aid" : "anonymousId";
  const detail =
    caller.mode === "private"
      ? `Name the shopper: customerId for a customer, or ${field} (the browser's anonymous id) for a guest.`
      : `${field} is required for a shopper who is not logged in.`;
  return missingIn === "query"
    ? new AppError("invalid-parameter", { detail, errors: [{ parameter: field, detail }] })
    : new AppError("validation-error", { detail, errors: [{ pointer: `#/${field}`, detail }] });
}
