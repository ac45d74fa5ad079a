import { describe, expect, it } from "vitest";
import { jsonPointer } from "~/api/json-pointer";

/** RFC 6901, section 6: problem documents carry JSON Pointers in URI fragment form. */
function decode(pointer: string): string[] {
  return pointer
    .slice(2)
    .split("/")
    .map((token) => decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~"));
}

describe("jsonPointer", () => {
  it("points at the whole document with #", () => {
    expect(jsonPointer([])).toBe("#");
  });

  it("escapes ~ and / as ~0 and ~1, and percent-encodes what a fragment cannot hold", () => {
    // The attacker review of issue 26: spaces, % and non-ASCII were written as they are, so `#/strings/%41`
    // read back as the member "A".
    expect(jsonPointer(["strings", "not a locale"])).toBe("#/strings/not%20a%20locale");
    expect(jsonPointer(["strings", "%41"])).toBe("#/strings/%2541");
    expect(jsonPointer(["strings", "é"])).toBe("#/strings/%C3%A9");
    expect(jsonPointer(["a/b~c\u0000"])).toBe("#/a~1b~0c%00");
    expect(jsonPointer(["items", 0, "productId"])).toBe("#/items/0/productId");
  });

  it("gives back every member name when the fragment is decoded", () => {
    const names = ["plain", "sp ace", "%41", "a/b", "~0", "~1/", "é😀", 'q"<>', "#?&=", "\u0000", "\r\n"];
    expect(decode(jsonPointer(names))).toEqual(names);
  });

  it("writes a lone surrogate, which UTF-8 cannot carry, as U+FFFD", () => {
    expect(jsonPointer(["a\uD800b"])).toBe("#/a%EF%BF%BDb");
  });
});
