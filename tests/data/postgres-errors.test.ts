import { describe, expect, it } from "vitest";
import { isPostgresUnavailable } from "~/data/postgres.server";

/** Which failures the API answers as "the database cannot be reached" (503 service-unavailable). */
describe("isPostgresUnavailable", () => {
  const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

  it("takes a refused connection, a terminated one and a server shutting down for the database being away", () => {
    expect(isPostgresUnavailable(refused())).toBe(true);
    expect(isPostgresUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isPostgresUnavailable(Object.assign(new Error("terminating connection"), { code: "57P01" }))).toBe(true);
    expect(isPostgresUnavailable(new Error("query failed", { cause: refused() }))).toBe(true);
  });

  it("does not take the object store's connection failure (an AWS SDK error) for the database's", () => {
    const s3 = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
      code: "ECONNREFUSED",
      $metadata: { attempts: 3 },
    });
    expect(isPostgresUnavailable(s3)).toBe(false);
    expect(isPostgresUnavailable(new Error("upload failed", { cause: s3 }))).toBe(false);
    expect(isPostgresUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
  });
});
