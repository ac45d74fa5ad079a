import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isId, newId, parseId } from "~/lib/ids";
import { AppError } from "~/lib/problems";
import { toTimestamp } from "~/lib/time";
import { bodyProblem, parameterProblem } from "~/api/v1/validation-problems.server";
import { platformIdSchema } from "~/lib/validation";

/** A body or parameters validated the way the API's validators report their issues. */
function parseBody(schema: z.ZodType, body: unknown): unknown {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw bodyProblem(result.error.issues);
}

function parseParameters(schema: z.ZodType, input: unknown): unknown {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw parameterProblem(result.error.issues);
}

function thrown(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

describe("prefixed ids", () => {
  it.each([
    ["list", "lst_"],
    ["item", "itm_"],
    ["event", "evt_"],
    ["apiKey", "key_"],
    ["webhookEndpoint", "whe_"],
    ["job", "job_"],
  ] as const)("%s ids start with %s and match the item pattern's shape", (kind, prefix) => {
    const id = newId(kind);
    expect(id.startsWith(prefix)).toBe(true);
    expect(id).toMatch(/^[a-z]+_[A-Za-z0-9]+$/);
    expect(isId(kind, id)).toBe(true);
  });

  it("sorts ids by creation time (stable keyset order)", async () => {
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) {
      ids.push(newId("list"));
      if (index % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect([...ids].sort()).toEqual(ids);
  });

  it("answers a wrong prefix with a 400 invalid-id problem, not a 404", () => {
    const error = thrown(() => parseId("list", newId("item"), "id"));
    expect(error.slug).toBe("invalid-id");
    expect(error.status).toBe(400);
    expect(error.errors).toEqual([{ parameter: "id", detail: "expected prefix lst_" }]);
    for (const bad of ["lst_", "lst-abc", "LST_abc", "abc", "lst_ab-c", ""]) {
      expect(thrown(() => parseId("list", bad)).status).toBe(400);
    }
    expect(parseId("list", "lst_01jabc")).toBe("lst_01jabc");
  });
});

describe("timestamps", () => {
  it("are ISO-8601 UTC with milliseconds and Z", () => {
    expect(toTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)))).toBe("2026-01-02T03:04:05.006Z");
    expect(toTimestamp(null)).toBeNull();
  });
});

describe("validation problems", () => {
  const body = z.object({ label: z.string().min(1), tags: z.array(z.string()).optional() }).strict();

  it("turns body issues into 422 with JSON pointers", () => {
    const error = thrown(() => parseBody(body, { label: "", tags: ["ok", 3], extra: 1 }));
    expect(error.slug).toBe("validation-error");
    expect(error.status).toBe(422);
    expect(error.errors?.map((issue) => issue.pointer).sort()).toEqual(["#", "#/label", "#/tags/1"]);
  });

  it("escapes ~ and / in pointers (RFC 6901)", () => {
    const schema = z.object({ "a/b": z.object({ "c~d": z.string() }) });
    const error = thrown(() => parseBody(schema, { "a/b": { "c~d": 1 } }));
    expect(error.errors?.[0]?.pointer).toBe("#/a~1b/c~0d");
  });

  it("turns query issues into 400 naming the parameter", () => {
    const error = thrown(() =>
      parseParameters(z.object({ limit: z.coerce.number().int().max(100) }), { limit: "500" }),
    );
    expect(error.slug).toBe("invalid-parameter");
    expect(error.status).toBe(400);
    expect(error.errors?.[0]?.parameter).toBe("limit");
  });
});

describe("platform ids", () => {
  it("accept digit strings and safe integers, and come out as decimal strings", () => {
    expect(platformIdSchema.parse("9007199254740993")).toBe("9007199254740993"); // beyond 2^53 as a string
    expect(platformIdSchema.parse(42)).toBe("42");
    expect(platformIdSchema.parse(Number.MAX_SAFE_INTEGER)).toBe("9007199254740991");
  });

  it.each([["12a"], [-1], [1.5], [""], [Number.MAX_SAFE_INTEGER + 2], [null]])("refuse %s", (value) => {
    expect(platformIdSchema.safeParse(value).success).toBe(false);
  });
});
