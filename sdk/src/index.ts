/**
 * The wishlist service's SDK: a typed client of the `/v1` API (three calling modes, retries with idempotency keys,
 * typed errors, pages as async iterators) and the webhook verifier. React bindings: `@wishlist-service/sdk/react`.
 */
export {
  createWishlistClient,
  paginate,
  requestIdOf,
  type AppProxyOptions,
  type PrivateKeyOptions,
  type PublicKeyOptions,
  type WishlistClient,
  type WishlistClientOptions,
} from "./client";
export { isProblem, WishlistApiError, type Problem, type ProblemCode } from "./errors";
export type { RetryOptions } from "./retry";
export { verifyWebhook, type VerifyWebhookOptions, type WebhookEvent, type WebhookVerification } from "./webhooks";
export type { components, operations, paths } from "../../api-types/openapi";
