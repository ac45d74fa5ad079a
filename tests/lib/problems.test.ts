import { STATUS_CODES } from "node:http";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it } from "vitest";
import { API_BODY_LIMIT_BYTES } from "~/api/body-limit.server";
import { createHttpApp } from "~/api/http-app.server";
import { problemResponse } from "~/api/problem-response.server";
import { AppError, PROBLEM_TYPES, type ProblemSlug } from "~/lib/problems";
import { BASE_URL, createTestApp } from "../support/http";

const app = await createTestApp();
const slugs = Object.keys(PROBLEM_TYPES) as ProblemSlug[];

describe("the problem model (RFC 9457)", () => {
  it("turns an AppError into application/problem+json with type, title, status, detail, instance and errors", async () => {
    const response = problemResponse(
      new AppError("validation-error", {
        detail: "The request body has 1 invalid member.",
        errors: [{ pointer: "#/label", detail: "Required" }],
      }),
      "/v1/keys",
    );
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toEqual({
      type: "http://localhost:3000/problems/validation-error",
      title: "Validation failed",
      status: 422,
      detail: "The request body has 1 invalid member.",
      instance: "/v1/keys",
      errors: [{ pointer: "#/label", detail: "Required" }],
    });
  });

  it("carries the problem's own headers (e.g. Allow on 405)", () => {
    const response = problemResponse(new AppError("method-not-allowed", { headers: { Allow: "GET, POST" } }));
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, POST");
  });

  it("answers an unexpected error with a generic 500 that reveals nothing, plus the request id", async () => {
    const failing = createHttpApp({
      remix: async () => {
        throw new Error("connection string postgres://admin:hunter2@db/prod");
      },
    });
    const response = await failing.request(`${BASE_URL}/anything`, { headers: { "X-Request-Id": "trace-me" } });
    expect(response.status).toBe(500);
    expect(response.headers.get("x-request-id")).toBe("trace-me");
    const body = await response.text();
    expect(body).not.toMatch(/hunter2|postgres|Error|at /);
    expect(JSON.parse(body)).toEqual({
      type: "http://localhost:3000/problems/internal-error",
      title: "Internal server error",
      status: 500,
      instance: "/anything",
    });
  });

  const aborted = Object.assign(new Error("aborted"), { code: "ECONNRESET" });
  it.each([
    [
      "Hono's 400 (a validator's malformed JSON)",
      new HTTPException(400, { message: "Malformed JSON in request body" }),
      400,
      "bad-request",
    ],
    ["Hono's 413 (body limit)", new HTTPException(413), 413, "payload-too-large"],
    [
      "Hono's 415 (media type gate)",
      new HTTPException(415, { message: "Unsupported Media Type" }),
      415,
      "unsupported-media-type",
    ],
    ["a body stream the client hung up on", new TypeError("terminated", { cause: aborted }), 400, "bad-request"],
    [
      "a premature close",
      Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }),
      400,
      "bad-request",
    ],
  ])("maps %s to its 4xx problem, never a 500", async (_name, thrown, status, slug) => {
    const failing = createHttpApp({
      remix: async () => {
        throw thrown;
      },
    });
    const response = await failing.request(`${BASE_URL}/anything`, { method: "POST" });
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toMatchObject({ type: `http://localhost:3000/problems/${slug}`, status });
  });

  it("keeps other library errors a 500: only the client's doing is a 4xx", async () => {
    const failing = createHttpApp({
      remix: async () => {
        throw new HTTPException(503);
      },
    });
    expect((await failing.request(`${BASE_URL}/anything`)).status).toBe(500);
  });

  it("documents the cap of JSON bodies in the payload-too-large type", () => {
    expect(PROBLEM_TYPES["payload-too-large"].description).toContain(API_BODY_LIMIT_BYTES.toLocaleString("en-US"));
  });

  it.each(slugs)("type %s resolves to a human-readable page served by the app", async (slug) => {
    const response = await app.request(`${BASE_URL}/problems/${slug}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain(`<h1>${PROBLEM_TYPES[slug].title}</h1>`);
    expect(html).toContain(`<strong>${PROBLEM_TYPES[slug].status}</strong>`);
  });

  it("lists every type on the catalogue page and answers 404 for an unknown one", async () => {
    const index = await (await app.request(`${BASE_URL}/problems`)).text();
    for (const slug of slugs) expect(index).toContain(`href="/problems/${slug}"`);
    expect((await app.request(`${BASE_URL}/problems/no-such-problem`)).status).toBe(404);
  });

  it("keeps the status of every v1 type as published: a type's status never changes within v1", () => {
    // The statuses as first published (docs/openapi.json, /problems); types added later join this table.
    const published: Record<string, number> = {
      "bad-request": 400,
      "malformed-json": 400,
      "invalid-parameter": 400,
      "invalid-id": 400,
      "invalid-cursor": 400,
      unauthorized: 401,
      forbidden: 403,
      "guest-wishlists-disabled": 403,
      "sharing-disabled": 403,
      "signed-url-invalid": 403,
      "signed-url-expired": 403,
      "not-found": 404,
      "method-not-allowed": 405,
      conflict: 409,
      "idempotency-key-in-use": 409,
      "platform-not-connected": 409,
      "file-expired": 410,
      "event-redacted": 410,
      "payload-too-large": 413,
      "content-type-mismatch": 415,
      "unsupported-media-type": 415,
      "validation-error": 422,
      "idempotency-key-reused": 422,
      "rate-limited": 429,
      "internal-error": 500,
      "platform-unavailable": 502,
      "service-unavailable": 503,
    };
    for (const [slug, status] of Object.entries(published)) {
      expect(PROBLEM_TYPES[slug as ProblemSlug]?.status, slug).toBe(status);
    }
  });

  it.each(slugs)("answers %s with exactly its status, type URL and title", async (slug) => {
    const { status, title } = PROBLEM_TYPES[slug];
    expect(STATUS_CODES[status], `${slug}: ${status} is not an HTTP status`).toBeDefined();
    expect(status >= 400 && status < 600, slug).toBe(true);
    const response = problemResponse(new AppError(slug), "/v1/x");
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toMatchObject({
      type: `http://localhost:3000/problems/${slug}`,
      title,
      status,
      instance: "/v1/x",
    });
  });
});
