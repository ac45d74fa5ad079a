import { describe, expect, it } from "vitest";
import { readShopSettings } from "~/services/shops/settings";

/** A settings document as a shop may store it (the admin's settings form takes up to 1 MiB), made distinct by `n`. */
function document(n: number, textChars: number) {
  const texts = Math.max(1, Math.floor(textChars / 500));
  const strings: Record<string, Record<string, string>> = {};
  for (let index = 0; index < texts; index++) {
    const locale = `x${String.fromCharCode(97 + ((index >> 4) % 26))}${String.fromCharCode(97 + ((index >> 8) % 26))}`;
    (strings[locale] ??= {})[`k${index}`] = `${n}`.padEnd(500, "a");
  }
  return JSON.stringify({ sharePath: `/pages/w${n}`, strings });
}

/**
 * Every storefront request reads its shop's settings through readShopSettings, which keeps what it parsed:
 * any shop can make that memory grow by saving its settings again and again with new large texts, in the web
 * process that serves every shop. What it keeps is bounded by the documents' size, not only their number.
 */
describe("the parsed settings kept by readShopSettings", () => {
  it("are reused for the same document", () => {
    const text = document(0, 2_000);
    expect(readShopSettings(text)).toBe(readShopSettings(text));
  });

  it("keep hundreds of documents of ordinary size", () => {
    const texts = Array.from({ length: 500 }, (_, n) => document(1_000 + n, 1_000));
    const first = readShopSettings(texts[0]!);
    for (const text of texts) readShopSettings(text);
    expect(readShopSettings(texts[0]!)).toBe(first);
  });

  it("do not hold 40 documents of 1 MB (one shop saving its settings 40 times)", () => {
    const first = document(1, 1_000_000);
    const parsed = readShopSettings(first);
    for (let n = 2; n <= 40; n++) readShopSettings(document(n, 1_000_000));
    // Parsed afresh: the first document was let go once the kept documents passed the cap.
    const again = readShopSettings(first);
    expect(again).not.toBe(parsed);
    expect(again).toEqual(parsed);
  });
});
