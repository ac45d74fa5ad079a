import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { Redis } from "ioredis";
import type { TestProject } from "vitest/node";
import { migrate, postgresUrlFor, TEST_DATA_DIR, withAdminClient, type Engine } from "../../scripts/lib/databases";
import { buildProcesses } from "../../scripts/lib/processes";

declare module "vitest" {
  export interface ProvidedContext {
    engine: Engine;
    templateDatabase: string;
  }
}

async function assertRedis() {
  const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const redis = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    throw new Error(`The tests need Redis at ${url} (set REDIS_URL). Start it: redis-server --daemonize yes`);
  } finally {
    redis.disconnect();
  }
}

/** Once per engine: migrate a template database that every test file then clones. */
export default async function setup(project: TestProject) {
  const engine = project.name as Engine; // the project names are the engines (vitest.config.ts)
  await assertRedis();
  // The web and worker processes the tests start, compiled from the sources as they are now (about a second).
  // Vitest runs this setup for each project, each time in a module of its own but in one process: the build
  // is shared through globalThis, so it runs once.
  const shared = globalThis as { processesBuilt?: Promise<void> };
  await (shared.processesBuilt ??= buildProcesses());
  const tag = `${process.pid}`;

  if (engine === "sqlite") {
    mkdirSync(TEST_DATA_DIR, { recursive: true });
    const template = path.join(TEST_DATA_DIR, `template-${tag}.db`);
    rmSync(template, { force: true });
    migrate(`file:${template}`);
    project.provide("engine", engine);
    project.provide("templateDatabase", template);
    return () => rmSync(template, { force: true });
  }

  const template = `wishlist_tpl_${tag}`;
  try {
    await withAdminClient(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${template}`);
    });
  } catch (error) {
    throw new Error(
      `The tests need PostgreSQL (set TEST_POSTGRES_URL; tried ${postgresUrlFor("postgres")}): ${String(error)}`,
    );
  }
  migrate(postgresUrlFor(template));
  project.provide("engine", engine);
  project.provide("templateDatabase", template);
  return async () => {
    await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`));
  };
}
