import type { ShopSettings } from "~/services/shops/settings";
import type { Tx } from "~/data/database.server";
import type { Owner } from "~/services/owners/owner";

/**
 * How the caller presented itself (the OpenAPI description's security schemes). `customerAccount`: the
 * session token of the customer account extension (docs/decisions/047-customer-account-session-tokens.md).
 */
export type CallerMode = "private" | "public" | "proxy" | "customerAccount";

/** Resolved once per request; every handler and service call gets its shop from here. */
export interface Caller {
  mode: CallerMode;
  shopId: string;
  shopDomain: string;
  /**
   * The API key id, or "public" / "proxy" / "customerAccount" for the credentials every shopper of the shop
   * shares. A private key's id is the scope of its Idempotency-Key records; the others are scoped further per
   * shopper (`idempotencyScope` in idempotency-key.server.ts, with the shopper's key of shopper.server.ts).
   */
  credentialId: string;
  /**
   * Set only by what the platform signs, in the canonical form of platform ids (auth.server.ts): in proxy mode
   * the logged_in_customer_id (null for a guest); in customerAccount mode the session token's `sub` (never
   * null: that mode serves customers only).
   */
  customerId: string | null;
  /**
   * Public, app proxy and customer account modes: the shop's settings (CORS, guest saves, lists), as
   * authentication read them.
   */
  settings?: ShopSettings;
}

export interface V1Env {
  Variables: {
    requestId: string;
    caller: Caller;
    corsOrigin: string | undefined;
    /** Set on a POST that reserved an Idempotency-Key (idempotency-key.server.ts). */
    idempotencyKey: ReservedKey | undefined;
    /** The JSON body, parsed once (body.server.ts); undefined when the request has none. */
    jsonBody: unknown;
    /** The storefront shopper, once resolved (`shopperOf`, shopper.server.ts). */
    shopper: Shopper | undefined;
  };
}

/** Who a storefront request acts for, resolved once (shopper.server.ts). */
export interface Shopper {
  /** The shopper's key (`c:<customer id>` or `a:<anonymous id>`); null: the request names nobody well formed. */
  key: string | null;
  /**
   * The owner of the list the call is about; throws the problem the route answers with. `missingIn` says
   * where a missing guest is reported: the query's `aid` (400), or the body's `anonymousId` (422).
   */
  owner(missingIn: "query" | "body"): Owner;
}

/** The key a request reserved, in the request's context for `idempotentReply`. */
export interface ReservedKey {
  /** Completes the record with `response` through the service's transaction. */
  completeWithin(tx: Tx, response: Response): Promise<void>;
  /** Set once the route answers with a response its service's transaction stored. */
  completedWithChange: boolean;
}
