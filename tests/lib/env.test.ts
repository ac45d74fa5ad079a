import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EnvError, envSchema, parseEnv, resolveDatabaseUrl } from "~/env.server";
import { ROOT } from "../../scripts/lib/databases";
import { startProcess } from "../support/processes";

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

  it("keeps transfer files 7 days unless FILE_RETENTION_DAYS says otherwise, a whole number of days from 1", () => {
    expect(parseEnv({}).FILE_RETENTION_DAYS).toBe(7);
    expect(parseEnv({ FILE_RETENTION_DAYS: "30" }).FILE_RETENTION_DAYS).toBe(30);
    for (const value of ["0", "-1", "1.5", "a week", "3651"]) {
      expect(() => parseEnv({ FILE_RETENTION_DAYS: value }), value).toThrow(/FILE_RETENTION_DAYS:/);
    }
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

  it("refuses the development credentials, the default database and a missing app URL in production", () => {
    let error: unknown;
    try {
      parseEnv({ NODE_ENV: "production" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvError);
    expect((error as EnvError).issues).toEqual(
      expect.arrayContaining([
        "DATABASE_URL: must be set in production (postgresql://... or an explicit file: path on a persistent volume)",
        "SHOPIFY_API_KEY: must be set in production (to your own value: the development one is published in this repository)",
        "SHOPIFY_API_SECRET: must be set in production (to your own value: the development one is published in this repository)",
        "SERVICE_SECRET: must be set in production (to your own value: the development one is published in this repository)",
        "SHOPIFY_APP_URL: must be set in production",
      ]),
    );
  });

  const production = {
    NODE_ENV: "production",
    DATABASE_URL: "postgresql://wishlist@db.internal:5432/wishlist",
    SHOPIFY_API_KEY: "a-real-platform-api-key",
    SHOPIFY_API_SECRET: "a-real-platform-secret",
    SERVICE_SECRET: "a-real-service-secret-of-at-least-32-characters",
    SHOPIFY_APP_URL: "https://wishlist.example.com",
  };

  it("refuses an allowed network that is no CIDR (the worker would fail on its first delivery)", () => {
    for (const networks of ["1.2.3.4/33", "999.1.1.1/8", "::1/129"]) {
      expect(() => parseEnv({ ...production, WEBHOOK_ALLOWED_NETWORKS: networks })).toThrow(
        /WEBHOOK_ALLOWED_NETWORKS: must be comma-separated CIDRs/,
      );
    }
  });

  it("accepts a production configuration without development-only settings, listening on every interface", () => {
    const env = parseEnv(production);
    expect(env.HOST).toBe("0.0.0.0");
    expect(parseEnv({ ...production, WEBHOOK_ALLOWED_NETWORKS: "8.8.8.0/24, 2606:4700::/32" }).NODE_ENV).toBe(
      "production",
    );
    // Settings with a production meaning stay accepted: SQLite on an explicit path, the contract's retry
    // unit spelled out, a heartbeat file for the worker's health check, a rotated secret.
    expect(
      parseEnv({
        ...production,
        DATABASE_URL: "file:/var/lib/wishlist/wishlist.db",
        WEBHOOK_RETRY_UNIT_MS: "60000",
        WORKER_HEALTH_FILE: "/tmp/worker-health",
        SERVICE_SECRET_PREVIOUS: "the-secret-this-one-replaced-32-characters-long",
      }),
    ).toMatchObject({
      DATABASE_ENGINE: "sqlite",
      WEBHOOK_RETRY_UNIT_MS: 60_000,
      WORKER_HEALTH_FILE: "/tmp/worker-health",
    });
  });

  it("applies the development-only defaults only where they mean something", () => {
    expect(parseEnv({})).toMatchObject({
      WEBHOOK_RETRY_UNIT_MS: 60_000,
      PLATFORM_STAND_IN_PORT: 3001,
      PLATFORM_STOREFRONT_PORT: 3002,
    });
    expect(parseEnv(production).WEBHOOK_RETRY_UNIT_MS).toBe(60_000);
  });

  it("binds to 127.0.0.1 in development and tests unless HOST is set", () => {
    expect(parseEnv({}).HOST).toBe("127.0.0.1");
    expect(parseEnv({ NODE_ENV: "test" }).HOST).toBe("127.0.0.1");
    expect(parseEnv({ HOST: "0.0.0.0" }).HOST).toBe("0.0.0.0");
    expect(parseEnv({ ...production, HOST: "10.0.0.5" }).HOST).toBe("10.0.0.5");
  });

  it.each<[Record<string, string>, RegExp]>([
    [{ WEBHOOK_ALLOW_HTTP: "true" }, /WEBHOOK_ALLOW_HTTP: is development only/],
    [
      { WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128" },
      /WEBHOOK_ALLOWED_NETWORKS: is development only: 127\.0\.0\.0\/8, ::1\/128/,
    ],
    [{ WEBHOOK_ALLOWED_NETWORKS: "10.1.0.0/16" }, /WEBHOOK_ALLOWED_NETWORKS: is development only: 10\.1\.0\.0\/16/],
    // A wide public-looking range that still covers a private one (10.0.0.0/8 lies inside 8.0.0.0/5).
    [{ WEBHOOK_ALLOWED_NETWORKS: "8.0.0.0/5" }, /WEBHOOK_ALLOWED_NETWORKS: is development only: 8\.0\.0\.0\/5/],
    [{ WEBHOOK_ALLOWED_NETWORKS: "0.0.0.0/0" }, /WEBHOOK_ALLOWED_NETWORKS: is development only/],
    [{ WEBHOOK_ALLOWED_NETWORKS: "fc00::/7" }, /WEBHOOK_ALLOWED_NETWORKS: is development only/],
    [{ SHOPIFY_ADMIN_API_ORIGIN: "http://127.0.0.1:4010" }, /SHOPIFY_ADMIN_API_ORIGIN: is for tests and local/],
    [{ APP_BRIDGE_URL: "http://127.0.0.1:4010/app-bridge.js" }, /APP_BRIDGE_URL: is for tests and local stand-ins/],
    [{ SHOPIFY_APP_URL: "http://wishlist.example.com" }, /SHOPIFY_APP_URL: must be an https:\/\/ URL in production/],
    [{ DATABASE_URL: "file:./.data/wishlist.db" }, /DATABASE_URL: must be set in production/],
    // The default database and the development secrets however they are spelt.
    [{ DATABASE_URL: "file:.data//wishlist.db?connection_limit=1" }, /DATABASE_URL: must be set in production/],
    [{ DATABASE_URL: `file:${path.resolve(".data/x/../wishlist.db")}` }, /DATABASE_URL: must be set in production/],
    [{ SHOPIFY_API_KEY: "local-dev-api-key" }, /SHOPIFY_API_KEY: must be set in production/],
    [{ SHOPIFY_API_KEY: " LOCAL-DEV-API-KEY\t" }, /SHOPIFY_API_KEY: must be set in production/],
    [{ SHOPIFY_API_SECRET: "Local-Dev-Api-Secret " }, /SHOPIFY_API_SECRET: must be set in production/],
    [{ SERVICE_SECRET: " local-dev-service-secret-CHANGE-ME-0123456789" }, /SERVICE_SECRET: must be set in production/],
    // This machine's address is no public URL: OAuth redirects and signed links would point back at the caller.
    [{ DATABASE_URL: "file:/proc/self/cwd/.data/wishlist.db" }, /DATABASE_URL: must be set in production/],
    ...[
      "https://localhost",
      "https://localhost.",
      "https://LOCALHOST..:8443",
      "https://app.localhost.",
      "https://app.localhost:8443",
      "https://127.0.0.2",
      "https://[::1]",
      "https://0.0.0.0",
    ].map((url): [Record<string, string>, RegExp] => [
      { SHOPIFY_APP_URL: url },
      /SHOPIFY_APP_URL: must be the app's public URL in production/,
    ]),
    [
      { SERVICE_SECRET_PREVIOUS: "local-dev-service-secret-change-me-0123456789" },
      /SERVICE_SECRET_PREVIOUS: is the development secret/,
    ],
    [{ WEBHOOK_RETRY_UNIT_MS: "20" }, /WEBHOOK_RETRY_UNIT_MS: is for tests and the demo only/],
    [{ WEBHOOK_RETRY_UNIT_MS: "1000" }, /WEBHOOK_RETRY_UNIT_MS: is for tests and the demo only/],
    [{ PLATFORM_STAND_IN_PORT: "3001" }, /PLATFORM_STAND_IN_PORT: is for `npm run dev` only/],
    [{ PLATFORM_STOREFRONT_PORT: "3002" }, /PLATFORM_STOREFRONT_PORT: is for `npm run dev` only/],
  ])("refuses the development-only setting %j in production", (setting, message) => {
    expect(() => parseEnv({ ...production, ...setting })).toThrow(message);
    // The same setting is accepted outside production.
    expect(() => parseEnv({ ...production, ...setting, NODE_ENV: "development" })).not.toThrow();
  });

  it("lists every development-only setting at once in production", () => {
    let error: unknown;
    try {
      parseEnv({
        ...production,
        WEBHOOK_ALLOW_HTTP: "true",
        WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8",
        SHOPIFY_ADMIN_API_ORIGIN: "http://127.0.0.1:4010",
        APP_BRIDGE_URL: "http://127.0.0.1:4010/app-bridge.js",
        SHOPIFY_APP_URL: "http://wishlist.example.com",
        WEBHOOK_RETRY_UNIT_MS: "20",
        PLATFORM_STAND_IN_PORT: "3001",
        PLATFORM_STOREFRONT_PORT: "3002",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvError);
    const names = (error as EnvError).issues.map((issue) => issue.split(":")[0]).sort();
    expect(names).toEqual([
      "APP_BRIDGE_URL",
      "PLATFORM_STAND_IN_PORT",
      "PLATFORM_STOREFRONT_PORT",
      "SHOPIFY_ADMIN_API_ORIGIN",
      "SHOPIFY_APP_URL",
      "WEBHOOK_ALLOWED_NETWORKS",
      "WEBHOOK_ALLOW_HTTP",
      "WEBHOOK_RETRY_UNIT_MS",
    ]);
  });

  // What `npm run dev` sets for the local demo (scripts/dev.ts) is exactly what the production start refuses.
  const devDemoSettings = {
    WEBHOOK_ALLOW_HTTP: "true",
    WEBHOOK_ALLOWED_NETWORKS: "127.0.0.0/8,::1/128",
    WEBHOOK_RETRY_UNIT_MS: "1000",
  };

  it.each(["server/index.ts", "worker/index.ts"])(
    "%s refuses to start in production with development-only settings, naming each",
    async (entry) => {
      const child = startProcess(entry, {
        ...production,
        ...devDemoSettings,
        // The per-file test database, so that nothing but the refused settings is wrong.
        DATABASE_URL: process.env.DATABASE_URL,
        SHOPIFY_ADMIN_API_ORIGIN: "http://127.0.0.1:4010",
      });
      const code = await new Promise<number | null>((resolve) => child.child.once("exit", resolve));
      expect(code).toBe(1);
      const output = child.output();
      expect(output).toContain("Invalid environment configuration:");
      for (const name of [...Object.keys(devDemoSettings), "SHOPIFY_ADMIN_API_ORIGIN"]) {
        expect(output).toMatch(new RegExp(`^  - ${name}: `, "m"));
      }
      // Refused before anything else loaded: the process never got as far as listening or consuming.
      expect(output).not.toMatch(/web server listening|worker ready/);
    },
  );

  it("refuses the default database in production through a symbolic link to the project (a release link)", () => {
    mkdirSync(".data", { recursive: true });
    const link = path.join(mkdtempSync(path.join(tmpdir(), "release-")), "current");
    symlinkSync(process.cwd(), link);
    try {
      expect(() => parseEnv({ ...production, DATABASE_URL: `file:${link}/.data/wishlist.db` })).toThrow(
        /DATABASE_URL: must be set in production/,
      );
      // Another file beside it is a choice, not the default.
      expect(parseEnv({ ...production, DATABASE_URL: `file:${link}/.data/shop.db` }).DATABASE_ENGINE).toBe("sqlite");
    } finally {
      rmSync(path.dirname(link), { recursive: true, force: true });
    }
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

describe(".env.example", () => {
  const text = readFileSync(path.join(ROOT, ".env.example"), "utf8");
  const set = Object.fromEntries(
    [...text.matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, name, value]) => [name!, value!] as const),
  );

  it("sets only values equal to the built-in defaults, so copying it to .env changes nothing", () => {
    expect(Object.keys(set).length).toBeGreaterThan(10);
    const defaults = parseEnv({});
    for (const [name, value] of Object.entries(set)) {
      expect(parseEnv({ [name]: value }), `${name}=${value}`).toEqual(defaults);
    }
    // In particular after a PORT change: the app URL follows it, as it does without a .env.
    expect(parseEnv({ ...set, PORT: "4123" }).SHOPIFY_APP_URL).toBe("http://localhost:4123");
  });

  it("leaves what npm run dev sets for the local demo to it", () => {
    for (const name of ["SHOPIFY_APP_URL", "WEBHOOK_ALLOW_HTTP", "WEBHOOK_ALLOWED_NETWORKS", "WEBHOOK_RETRY_UNIT_MS"]) {
      expect(set, name).not.toHaveProperty(name);
    }
  });

  it("lists every variable of the environment schema, set or commented out", () => {
    const listed = new Set([...text.matchAll(/^(?:# )?([A-Z][A-Z0-9_]*)=/gm)].map(([, name]) => name));
    const missing = Object.keys(envSchema.in.shape).filter((name) => !listed.has(name));
    expect(missing).toEqual([]);
  });
});
