/**
 * `Retry-After` as the SDK reads it (sdk/src/errors.ts): for its own retries and for `WishlistApiError.retryAfter`,
 * which an application waits by. A value that is neither seconds nor an HTTP date is unreadable (null: the SDK
 * backs off as for no header), never a wait of 0.
 */
import { describe, expect, it } from "vitest";
import { createWishlistClient, WishlistApiError } from "../../sdk/src/index";

const NOW = Date.parse("2026-11-30T12:00:00Z");

/** The `retryAfter` of the error a 429 with this `Retry-After` is thrown as (answered here, no server). */
async function retryAfterOf(header: string): Promise<number | null> {
  const problem = { type: "https://wishlist.example/problems/rate-limited", title: "Too many requests", status: 429 };
  const client = createWishlistClient({
    baseUrl: "http://127.0.0.1:9",
    privateKey: "svc_sk_x",
    retry: { retries: 0 },
    fetch: async () =>
      new Response(JSON.stringify(problem), {
        status: 429,
        headers: { "Content-Type": "application/problem+json", "Retry-After": header },
      }),
  });
  const error = await client.GET("/shop").catch((failure: unknown) => failure);
  expect(error).toBeInstanceOf(WishlistApiError);
  return (error as WishlistApiError).retryAfter;
}

describe("Retry-After", () => {
  it.each([
    ["-1", "a negative number"],
    ["1.5", "a fraction"],
    ["+5", "a signed number"],
    ["10, 20", "two headers joined by a proxy"],
    ["soon", "a word"],
  ])("%s (%s) is unreadable, not a wait of 0", async (header) => {
    expect(await retryAfterOf(header)).toBeNull();
  });

  it.each([
    ["120", 120],
    ["0", 0],
    ["99999999999", 99_999_999_999],
  ])("%s is that many seconds", async (header, seconds) => {
    expect(await retryAfterOf(header)).toBe(seconds);
  });

  it("reads an HTTP date in each of its three forms, and one in the past as 0", async () => {
    const { retryAfterSeconds } = await import("../../sdk/src/errors");
    for (const date of [
      "Mon, 30 Nov 2026 12:02:00 GMT",
      "Monday, 30-Nov-26 12:02:00 GMT",
      "Mon Nov 30 12:02:00 2026",
    ]) {
      expect(retryAfterSeconds(date, NOW)).toBe(120);
    }
    expect(retryAfterSeconds("Sun, 29 Nov 2026 12:00:00 GMT", NOW)).toBe(0);
  });
});
