import { ApiVersion } from "@shopify/shopify-app-remix/server";

/**
 * The one Admin API version of the app. `shopify.app.toml` ([webhooks] api_version) must say the same;
 * a test compares the two.
 */
export const SHOPIFY_API_VERSION = ApiVersion.July26;
