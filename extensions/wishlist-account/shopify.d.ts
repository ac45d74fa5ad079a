// The `shopify` global of each module that reads it, as the platform's CLI declares it (`shopify app dev`
// rewrites this file in the same form).
import "@shopify/ui-extensions";

declare module "./src/WishlistPage.tsx" {
  const shopify: import("@shopify/ui-extensions/customer-account.page.render").Api;
  const globalThis: { shopify: typeof shopify };
}
