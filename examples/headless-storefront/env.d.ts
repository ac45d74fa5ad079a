/// <reference types="vite/client" />

/** The public settings vite.config.ts compiles into the pages (server/vite.ts); never the private key. */
interface ImportMetaEnv {
  readonly VITE_WISHLIST_URL: string;
  readonly VITE_WISHLIST_SHOP: string;
  readonly VITE_WISHLIST_PUBLIC_KEY: string;
  readonly VITE_STOREFRONT_ORIGIN: string;
  readonly VITE_STOREFRONT_ACCESS_TOKEN: string;
  readonly VITE_STOREFRONT_API_VERSION: string;
}
