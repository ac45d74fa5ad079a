import type { ShopSettings } from "~/services/shops/settings";

/** How the caller presented itself (spec 5). */
export type CallerMode = "private" | "public" | "proxy";

/** Resolved once per request; every handler and service call gets its shop from here. */
export interface Caller {
  mode: CallerMode;
  shopId: string;
  shopDomain: string;
  /** The API key id, or "public" / "proxy": the scope of idempotency keys. */
  credentialId: string;
  /** Only ever set in proxy mode, from the platform-signed logged_in_customer_id. */
  customerId: string | null;
  /** Public mode only: the shop's settings (CORS). */
  settings?: ShopSettings;
}

export interface V1Env {
  Variables: { requestId: string; caller: Caller; corsOrigin: string | undefined };
}
