import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/databases";

// Statements freed by the garbage collector while the process runs: better-sqlite3 11 and 12 abort the
// whole process there on Node 24 ("Assertion failed: (env) != nullptr" in RemoveEnvironmentCleanupHook),
// and 13 segfaults on Node 20 (no Node-API 10). The process is a child so that an abort is an exit code
// here, not a lost test worker. scripts/node-lts-check.sh runs this file on Node 22 and 24
// (docs/decisions/037-better-sqlite3-per-node.md).
const CHURN = `
  const Database = require("better-sqlite3");
  const db = new Database(":memory:");
  db.exec("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)");
  for (let round = 0; round < 20; round++) {
    for (let i = 0; i < 500; i++) db.prepare("INSERT INTO item (name) VALUES (?)").run("item " + round + "-" + i);
    db.prepare("SELECT count(*) AS n FROM item WHERE name LIKE ?").get("item " + round + "%");
    globalThis.gc();
  }
  const { n } = db.prepare("SELECT count(*) AS n FROM item").get();
  db.close();
  process.stdout.write(JSON.stringify({ n, napi: process.versions.napi }));
`;

describe("better-sqlite3 on this Node", () => {
  it("survives statements collected by the garbage collector, and the exit", () => {
    const run = spawnSync(process.execPath, ["--expose-gc", "-e", CHURN], { cwd: ROOT, encoding: "utf8" });
    expect(run.stderr).not.toMatch(/Assertion failed|Segmentation fault/);
    expect({ status: run.status, signal: run.signal }).toEqual({ status: 0, signal: null });
    expect(JSON.parse(run.stdout)).toEqual({ n: 10_000, napi: process.versions.napi });
  });

  it("is the Node-API build (13) wherever Node offers Node-API 10, the 11 build only before that (Node 20)", () => {
    const load = createRequire(`${ROOT}/package.json`);
    const expected = Number(process.versions.napi) >= 10 ? "better-sqlite3-napi" : "better-sqlite3-node20";
    const { version } = load(`${expected}/package.json`) as { version: string };
    expect(version.split(".")[0]).toBe(expected === "better-sqlite3-napi" ? "13" : "11");
    expect(load("better-sqlite3")).toBe(load(expected));
  });
});
