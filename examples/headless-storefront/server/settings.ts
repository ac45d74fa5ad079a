import { readFileSync } from "node:fs";
import path from "node:path";

/** What the storefront needs to know: the wishlist service and its keys, and the shop's Storefront API. */
export interface StorefrontSettings {
  /** The wishlist service, without `/v1`: `http://localhost:3000`. */
  wishlistUrl: string;
  /** The shop's domain, `<name>.myshopify.com`: the public key's `X-Service-Shop`. */
  shopDomain: string;
  /** The shop's public key `svc_pk_...`: sent by the browser. */
  publicKey: string;
  /** The shop's private key `svc_sk_...`: this server's only (the demo login and the customer's calls). */
  privateKey: string;
  /** Where the shop's Storefront API answers: `https://<shop>.myshopify.com`; here the stand-in's storefront. */
  storefrontOrigin: string;
  /** The Storefront API's public access token (the Headless channel gives one). */
  storefrontAccessToken: string;
}

/** This repository's root: `npm run dev` writes the demo shop's keys under it. */
const REPOSITORY = path.resolve(import.meta.dirname, "../../..");

/**
 * The settings from the environment (`WISHLIST_URL`, `WISHLIST_SHOP`, `WISHLIST_PUBLIC_KEY`, `WISHLIST_PRIVATE_KEY`,
 * `STOREFRONT_ORIGIN`, `STOREFRONT_ACCESS_TOKEN`), each one missing taken from the demo shop's file that
 * `npm run dev` writes (`DEMO_SHOP_FILE`, by default `.data/demo-shop.json` in this repository). Throws, saying
 * what to do, when a setting is nowhere.
 */
export function readSettings(env: Record<string, string | undefined> = process.env): StorefrontSettings {
  const file = path.resolve(REPOSITORY, env.DEMO_SHOP_FILE || ".data/demo-shop.json");
  let demo: Record<string, unknown> = {};
  try {
    demo = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    // No file: the environment must say everything (below).
  }
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);
  const settings = {
    wishlistUrl: text(env.WISHLIST_URL) ?? text(demo.apiBaseUrl)?.replace(/\/v1\/?$/, ""),
    shopDomain: text(env.WISHLIST_SHOP) ?? text(demo.shopDomain),
    publicKey: text(env.WISHLIST_PUBLIC_KEY) ?? text(demo.publicKey),
    privateKey: text(env.WISHLIST_PRIVATE_KEY) ?? text(demo.privateKey),
    storefrontOrigin: text(env.STOREFRONT_ORIGIN) ?? text(demo.storefrontOrigin),
    storefrontAccessToken: text(env.STOREFRONT_ACCESS_TOKEN) ?? text(demo.storefrontAccessToken),
  };
  const missing = Object.entries(settings).filter(([, value]) => value === undefined);
  if (missing.length) {
    throw new Error(
      `The headless storefront example has no ${missing.map(([name]) => name).join(", ")}: ` +
        `start \`npm run dev\` in another terminal first (it writes ${path.relative(process.cwd(), file) || file}), ` +
        "or set them in the environment (examples/headless-storefront/README.md).",
    );
  }
  return settings as StorefrontSettings;
}
