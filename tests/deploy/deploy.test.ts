import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "~/env.server";
import { ROOT } from "../../scripts/lib/databases";
import { nodeArguments } from "../../scripts/lib/processes";
import { until } from "../support/poll";
import { startProcess } from "../support/processes";

const read = (file: string) => readFileSync(path.join(ROOT, file), "utf8");

/** The `command: [...]` of each service of compose.yaml (written as JSON arrays there). */
function composeCommands(): Record<string, string[]> {
  const commands: Record<string, string[]> = {};
  let service: string | undefined;
  for (const line of read("compose.yaml").split("\n")) {
    const header = /^ {2}([a-z][a-z0-9-]*):\s*$/.exec(line);
    if (header) service = header[1];
    const command = /^ {4}command: (\[.*\])\s*$/.exec(line);
    if (service && command) commands[service] = JSON.parse(command[1]!) as string[];
  }
  return commands;
}

/** An npm script of package.json as an argument list, without the NODE_ENV the image already sets. */
function npmScript(name: string): string[] {
  const scripts = (JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts;
  return scripts[name]!.replace(/^NODE_ENV=production /, "").split(" ");
}

describe("deployment files (docs/deploy.md)", () => {
  it("run exactly the commands of npm start, npm run worker and npm run db:migrate", () => {
    const commands = composeCommands();
    expect(commands.web).toEqual(npmScript("start"));
    expect(commands.worker).toEqual(npmScript("worker"));
    // The worker runs with the memory settings the tests and benchmarks start it with.
    expect(npmScript("worker")).toEqual([
      "node",
      ...nodeArguments("worker/index.ts").map((arg) => arg.replace(`${ROOT}/`, "")),
    ]);
    expect(commands.migrate).toEqual([...npmScript("db:migrate")]);
    // The image's default command is the web process's.
    const cmd = /^CMD (\[.*\])$/m.exec(read("Dockerfile"));
    expect(JSON.parse(cmd![1]!)).toEqual(commands.web);
    expect(read("Dockerfile")).toMatch(/^ENV NODE_ENV=production/m);
    expect(read("Dockerfile")).toMatch(/^USER node$/m);
  });

  it("keep Redis's data and never let it evict a key (docs/decisions/025-queue-reconciliation.md)", () => {
    const redis = /^ {2}redis:\n([\s\S]*?)\n {2}[a-z]/m.exec(read("compose.yaml"))![1]!;
    const args = [...redis.matchAll(/^ {6}- "?([^"\n]+)"?$/gm)].map(([, arg]) => arg);
    expect(args.slice(args.indexOf("--appendonly"), args.indexOf("--appendonly") + 2)).toEqual(["--appendonly", "yes"]);
    expect(args.slice(args.indexOf("--maxmemory-policy"), args.indexOf("--maxmemory-policy") + 2)).toEqual([
      "--maxmemory-policy",
      "noeviction",
    ]);
  });

  it("ship an app settings template the production start refuses until its secrets are filled in", () => {
    const template = Object.fromEntries(
      [...read("deploy/app.env.example").matchAll(/^([A-Z][A-Z0-9_]*)=(.*)$/gm)].map(([, name, value]) => [
        name!,
        value!,
      ]),
    );
    // What the image sets itself.
    const image = { NODE_ENV: "production", HOST: "0.0.0.0", PORT: "3000" };
    let error: unknown;
    try {
      parseEnv({ ...template, ...image });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EnvError);
    expect((error as EnvError).issues.map((issue) => issue.split(":")[0]).sort()).toEqual([
      "DATABASE_URL",
      "SERVICE_SECRET",
      "SHOPIFY_API_KEY",
      "SHOPIFY_API_SECRET",
      "SHOPIFY_APP_URL",
    ]);
    const filled = parseEnv({
      ...template,
      ...image,
      SHOPIFY_APP_URL: "https://wishlist.example.com",
      SHOPIFY_API_KEY: "a-real-platform-api-key",
      SHOPIFY_API_SECRET: "a-real-platform-secret",
      SERVICE_SECRET: "a-real-service-secret-of-at-least-32-characters",
      DATABASE_URL: "postgresql://wishlist:secret@postgres:5432/wishlist",
    });
    expect(filled).toMatchObject({
      DATABASE_ENGINE: "postgres",
      REDIS_URL: "redis://redis:6379",
      TRUSTED_PROXY_HOPS: 1,
    });
  });
});

describe("worker health check (worker/health-check.mjs)", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "worker-health-"));
  const file = path.join(dir, "heartbeat");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The command compose.yaml runs as the worker's health check; its exit code. */
  const check = () =>
    spawnSync(process.execPath, ["worker/health-check.mjs"], {
      cwd: ROOT,
      env: { ...process.env, WORKER_HEALTH_FILE: file },
    }).status;

  it("fails without a heartbeat, passes while the worker runs, fails once it stopped", async () => {
    expect(check()).toBe(1);
    const worker = startProcess("worker/index.ts", { WORKER_HEALTH_FILE: file });
    try {
      await worker.waitForOutput(/worker ready/, 90_000);
      await until(check, (code) => code === 0, "the worker's health check passes");
    } finally {
      expect(await worker.stop(30_000)).toBe(0);
    }
    // A stopping worker removes its heartbeat: it is no longer reported healthy.
    expect(check()).toBe(1);
  });

  it("fails on a heartbeat older than three beats (Redis or the database stopped answering)", () => {
    writeFileSync(file, new Date().toISOString());
    expect(check()).toBe(0);
    const old = new Date(Date.now() - 60_000);
    utimesSync(file, old, old);
    expect(check()).toBe(1);
  });
});
