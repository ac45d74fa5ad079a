import { describe, expect, it } from "vitest";
import { EnvError, parseEnv, resolveDatabaseUrl } from "~/env.server";
import { startProcess } from "./support/processes";

describe("environment validation", () => {
  it("gives working local defaults for every variable", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      NODE_ENV: "development",
      PORT: 3000,
      SHOPIFY_APP_URL: "http://localhost:3000",
      DATABASE_ENGINE: "sqlite",
      REDIS_URL: "redis://127.0.0.1:6379",
      REDIS_PREFIX: "wishlist",
    });
    expect(env.DATABASE_URL).toMatch(/^file:\/.*\/\.data\/wishlist\.db$/);
  });

  it("selects PostgreSQL for postgres:// and postgresql:// URLs", () => {
    expect(parseEnv({ DATABASE_URL: "postgres://u@h/db" }).DATABASE_ENGINE).toBe("postgres");
    expect(parseEnv({ DATABASE_URL: "postgresql://u@h/db" }).DATABASE_ENGINE).toBe("postgres");
  });

  it("lists every problem at once, naming each variable", () => {
    let error: unknown;
    try {
      parseEnv({ PORT: "eighty", DATABASE_URL: "mysql://x", REDIS_URL: "http://x", SERVICE_SECRET: "short" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as EnvError).message;
    for (const name of ["PORT", "DATABASE_URL", "REDIS_URL", "SERVICE_SECRET"]) expect(message).toContain(`${name}:`);
    expect(message).toContain(".env.example");
  });

  it("refuses the development secrets and a missing app URL in production", () => {
    expect(() => parseEnv({ NODE_ENV: "production" })).toThrow(/SHOPIFY_API_SECRET: must be set in production/);
    expect(() => parseEnv({ NODE_ENV: "production" })).toThrow(/SERVICE_SECRET: must be set in production/);
    expect(() => parseEnv({ NODE_ENV: "production" })).toThrow(/SHOPIFY_APP_URL: must be set in production/);
  });

  it("resolves relative SQLite paths against the project root", () => {
    expect(resolveDatabaseUrl("file:./x/y.db", "/srv/app")).toBe("file:/srv/app/x/y.db");
    expect(resolveDatabaseUrl("file:/abs.db", "/srv/app")).toBe("file:/abs.db");
    expect(resolveDatabaseUrl("postgres://h/db", "/srv/app")).toBe("postgres://h/db");
  });

  it.each(["server/index.ts", "worker/index.ts"])("%s exits 1 at start-up with a clear message", async (entry) => {
    const child = startProcess(entry, { DATABASE_URL: "mysql://nope", PORT: "-1" });
    const code = await new Promise<number | null>((resolve) => child.child.once("exit", resolve));
    expect(code).toBe(1);
    expect(child.output()).toContain("Invalid environment configuration:");
    expect(child.output()).toContain("DATABASE_URL: must start with file:");
    expect(child.output()).toContain("PORT:");
  });
});
