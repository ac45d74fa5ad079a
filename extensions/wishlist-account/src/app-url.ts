/**
 * Where the extension calls the app. `shopify app dev` defines `process.env.APP_URL` (the app's tunnel) when
 * it bundles the extension; otherwise it is the app's URL as shopify.app.toml names it (`application_url`,
 * which `shopify app config link` sets), kept equal to this constant by tests/extensions/wishlist-account.test.ts.
 */
declare const process: { env: { APP_URL?: string } };

export const APPLICATION_URL = "http://localhost:3000";

export function appUrl(): string {
  try {
    // Replaced by its value at bundle time when the CLI defines it; there is no `process` in the sandbox.
    return process.env.APP_URL || APPLICATION_URL;
  } catch {
    return APPLICATION_URL;
  }
}
