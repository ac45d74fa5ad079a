import type { ApiVersion } from "@shopify/shopify-app-remix/server";

/**
 * The one Admin API version of the app. `shopify.app.toml` ([webhooks] api_version) must say the same;
 * a test compares the two. Written as the enum member's value with a type import: importing the enum
 * itself loads the whole Shopify library (about 29 MB of RSS) into every process that calls the Admin
 * API, the worker included, which otherwise never needs it.
 */
export const SHOPIFY_API_VERSION = "2026-07" as ApiVersion.July26 satisfies `${ApiVersion.July26}`;
