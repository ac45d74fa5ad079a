import tsconfigPaths from "vite-tsconfig-paths";
import { configDefaults, defineConfig } from "vitest/config";

// Files that touch no database: they run once, in the SQLite project (docs/decisions/042-test-time.md).
const ENGINE_FREE = [
  "tests/repo/architecture.test.ts",
  "tests/lib/conventions.test.ts",
  "tests/lib/cursor.test.ts",
  "tests/admin/pages.test.ts",
  "tests/i18n/catalogues.test.ts",
  "tests/stand-in/online-store.test.ts",
  "tests/stand-in/admin-schema.test.ts",
  "tests/stand-in/billing.test.ts",
  "tests/stand-in/theme-state.test.ts",
  "tests/stand-in/admin-graphql-alerts.test.ts",
  "tests/stand-in/product-webhooks.test.ts",
  "tests/stand-in/checkout.test.ts",
  "tests/stand-in/storefront-api.test.ts",
  "tests/stand-in/mailbox.test.ts",
  "tests/stand-in/mailbox-pages.test.ts",
  "tests/server/redis-connections.test.ts",
  "tests/deploy/deploy.test.ts",
  "tests/jobs/definitions.test.ts",
  "tests/api/json-pointer.test.ts",
  "tests/services/alerts/email-template.test.ts",
  "tests/services/alerts/rules.test.ts",
  "tests/sdk/types.test.ts",
  "tests/sdk/package.test.ts",
  "tests/sdk/webhooks.test.ts",
  "tests/sdk/client-options.test.ts",
  "tests/sdk/retry-after.test.ts",
  "tests/scripts/breaking-changes.test.ts",
];

// The whole suite runs once per database engine; each test file gets its own database (cloned from a
// migrated template) and its own Redis key prefix (tests/setup).
export default defineConfig({
  plugins: [tsconfigPaths()],
  test: {
    include: ["tests/**/*.test.ts"],
    globalSetup: ["tests/setup/global-setup.ts"],
    setupFiles: ["tests/setup/per-file.ts"],
    pool: "forks",
    server: {
      deps: {
        // The platform's extension test utilities import the extension's module (TSX) themselves: run through
        // Vitest's transform, not Node's loader, which cannot read TSX (tests/extensions).
        inline: ["@shopify/ui-extensions-tester"],
      },
    },
    // Files run side by side: most of a file's time is spent waiting (on a child process it started, a
    // poll, a browser, the database), so three files at a time keep two cores busy where Vitest's default
    // (cores - 1) ran one at a time here. TEST_WORKERS overrides it (docs/decisions/042-test-time.md).
    maxWorkers: Number(process.env.TEST_WORKERS ?? 3),
    minWorkers: 1,
    // Bounds for a hang, not expectations: the suite must pass on a loaded 2-core machine (issue 16, item 6).
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // expect.poll waits for a state: 1 s by default, which a loaded machine's round trip can exceed.
    expect: { poll: { timeout: 90_000 } },
    projects: [
      // PostgreSQL only: the short soak (tests/scripts/soak.test.ts), defined on the production engine with two
      // web and two worker processes on one database (docs/benchmarks.md); the PostgreSQL restart, which
      // stops and starts a server of its own (there is no SQLite server to restart); the relay racing a
      // delivery's log, and a settings change beside an open insert, windows SQLite's single writer does not
      // have; the connection pool running dry (SQLite has no pool); named lists' row-lock windows; and two
      // subscription webhooks applied side by side.
      {
        extends: true,
        test: {
          name: "sqlite",
          env: { TEST_DATABASE: "sqlite" },
          exclude: [
            ...configDefaults.exclude,
            "tests/scripts/soak.test.ts",
            "tests/faults/postgres-restart.test.ts",
            "tests/services/webhooks/relay-race.test.ts",
            "tests/api/pool-busy.test.ts",
            "tests/api/settings-lock.test.ts",
            "tests/api/named-lists-races.test.ts",
            "tests/services/plans/subscription-race.test.ts",
          ],
        },
      },
      // Browser tests (tests/e2e) run on SQLite only: the pages call the same services whose every
      // statement the rest of the suite runs on both engines (docs/decisions/018-local-admin.md). So do the
      // docs' examples (tests/docs), which call the API as a reader's programs do
      // (docs/decisions/060-runnable-docs.md). Nor do the files that touch no database run twice.
      {
        extends: true,
        test: {
          name: "postgres",
          env: { TEST_DATABASE: "postgres" },
          exclude: [...configDefaults.exclude, "tests/e2e/**", "tests/docs/**", ...ENGINE_FREE],
        },
      },
    ],
  },
});
