import { describe, expect, it } from "vitest";
import { decodeCursor, encodeCursor } from "~/lib/cursor.server";
import { readCursor, toPage } from "~/lib/pagination.server";
import { AppError } from "~/lib/problems";
import { pageParamsSchema } from "~/lib/validation";

function expectInvalidCursor(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).slug).toBe("invalid-cursor");
    expect((error as AppError).status).toBe(400);
    return;
  }
  throw new Error("expected an invalid-cursor AppError");
}

describe("opaque cursors", () => {
  const scope = "lists:shop_1";

  it("round-trips a position", () => {
    const cursor = encodeCursor(scope, { after: "lst_01jabc" });
    expect(cursor).not.toContain("lst_01jabc"); // opaque: not the raw id
    expect(decodeCursor(scope, cursor)).toEqual({ after: "lst_01jabc" });
  });

  it("rejects an edited payload", () => {
    const cursor = encodeCursor(scope, { after: "lst_01jabc" });
    const [, signature] = cursor.split(".");
    const forged = `${Buffer.from(JSON.stringify({ after: "lst_01jzzz" })).toString("base64url")}.${signature}`;
    expectInvalidCursor(() => decodeCursor(scope, forged));
  });

  it("rejects an edited signature, garbage and empty parts", () => {
    const cursor = encodeCursor(scope, { after: "lst_01jabc" });
    const flipped = cursor.slice(0, -1) + (cursor.endsWith("A") ? "B" : "A");
    for (const bad of [flipped, "garbage", "a.b.c", ".", `${cursor}.extra`, "%%%.%%%"]) {
      expectInvalidCursor(() => decodeCursor(scope, bad));
    }
  });

  it("rejects a cursor issued for another listing or shop", () => {
    const cursor = encodeCursor("lists:shop_1", { after: "lst_01jabc" });
    expectInvalidCursor(() => decodeCursor("lists:shop_2", cursor));
    expectInvalidCursor(() => decodeCursor("exports:shop_1", cursor));
  });

  it("pages through rows with limit+1 and hands back a cursor only when more rows exist", () => {
    const rows = ["a", "b", "c"].map((id) => ({ id: `lst_${id}` }));
    const first = toPage(scope, rows, 2, (row) => row.id);
    expect(first.data).toEqual(["lst_a", "lst_b"]);
    expect(first.pageInfo.nextCursor).toEqual(expect.any(String));
    const params = pageParamsSchema.parse({ cursor: first.pageInfo.nextCursor });
    expect(readCursor(scope, params)).toBe("lst_b");

    const last = toPage(scope, rows.slice(2), 2, (row) => row.id);
    expect(last).toEqual({ data: ["lst_c"], pageInfo: { nextCursor: null } });
  });

  it("validates limit (1-100, default 50) and a non-empty cursor", () => {
    expect(pageParamsSchema.parse({})).toEqual({ limit: 50 });
    expect(pageParamsSchema.parse({ limit: "100" }).limit).toBe(100);
    for (const limit of ["0", "101", "abc", "1.5"]) expect(pageParamsSchema.safeParse({ limit }).success).toBe(false);
    expect(pageParamsSchema.safeParse({ cursor: "" }).success).toBe(false);
  });
});
