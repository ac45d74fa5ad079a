/**
 * What the SDK's client (sdk/src/client.ts) does with its options before any request: where it refuses a private
 * key, and what of a wrong key its errors show. No server: nothing here reaches one.
 */
import { describe, expect, it } from "vitest";
import { createWishlistClient } from "../../sdk/src/index";

const baseUrl = "http://127.0.0.1:9";

/** Runs `body` with these globals defined, then puts back what was there. */
function withGlobals(globals: Record<string, unknown>, body: () => void) {
  const before = Object.fromEntries(
    Object.keys(globals).map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]),
  );
  for (const [name, value] of Object.entries(globals)) {
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  try {
    body();
  } finally {
    for (const [name, descriptor] of Object.entries(before)) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete (globalThis as Record<string, unknown>)[name];
    }
  }
}

class WorkerGlobalScope {}

describe("a private key", () => {
  it.each([
    ["a browser's web worker", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140"],
    ["a browser's service worker", "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) Gecko/20100101 Firefox/128.0"],
  ])("is refused in %s", (_scope, userAgent) => {
    withGlobals({ WorkerGlobalScope, importScripts: () => {}, navigator: { userAgent } }, () => {
      expect(() => createWishlistClient({ baseUrl, privateKey: "svc_sk_x" })).toThrow(/never reach a browser/);
    });
  });

  it.each([
    // Cloudflare defined importScripts until its 2024-03-04 compatibility date; a server-side worker all the same.
    [
      "Cloudflare Workers",
      { WorkerGlobalScope, importScripts: () => {}, navigator: { userAgent: "Cloudflare-Workers" } },
    ],
    ["a Deno worker", { WorkerGlobalScope, navigator: { userAgent: "Deno/2.1.4" } }],
    ["Node", { navigator: { userAgent: "Node.js/22" } }],
  ])("is taken in %s, a server", (_runtime, globals) => {
    withGlobals(globals, () => {
      expect(createWishlistClient({ baseUrl, privateKey: "svc_sk_x" })).toHaveProperty("GET");
    });
  });
});

describe("a key in the wrong place", () => {
  // Secrets of other systems that end up in the wrong environment variable: none of their characters may show.
  const platformSecret = "3f9a2c1b7d6e5f408a9b0c1d2e3f4a5b";
  const stripeLike = "sk_live_51HaBcDeFgHiJkLmN";

  /** The message `create` throws. */
  function refusal(create: () => unknown): string {
    try {
      create();
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error("not refused");
  }

  /** Every run of four characters of `secret`: none may appear in a message. */
  const pieces = (secret: string) => Array.from({ length: secret.length - 3 }, (_, at) => secret.slice(at, at + 4));

  it.each([
    ["privateKey", () => createWishlistClient({ baseUrl, privateKey: platformSecret }), platformSecret],
    ["privateKey", () => createWishlistClient({ baseUrl, privateKey: stripeLike }), stripeLike],
    [
      "publicKey",
      () => createWishlistClient({ baseUrl, publicKey: platformSecret, shop: "a.myshopify.com" }),
      platformSecret,
    ],
  ])("as %s is described by its length, with none of its characters", (_option, create, secret) => {
    const message = refusal(create);
    for (const piece of pieces(secret)) expect(message).not.toContain(piece);
    expect(message).toContain(`(got a string of ${secret.length} characters, not shown)`);
  });

  it.each([
    ["the public key as the private one", { privateKey: "svc_pk_abcdef" }, '(got a string starting "svc_pk_")'],
    ["a webhook secret as the private key", { privateKey: "whsec_abcdef" }, '(got a string starting "whsec_")'],
    ["the private key as the public one", { publicKey: "svc_sk_abcdef", shop: "a.myshopify.com" }, '"svc_sk_")'],
  ])("names %s by the key's prefix only", (_case, options, said) => {
    const message = refusal(() => createWishlistClient({ baseUrl, ...options } as never));
    expect(message).toContain(said);
    expect(message).not.toContain("abcdef");
  });
});
