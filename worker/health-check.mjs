// The worker's container health check (compose.yaml, docs/deploy.md): exit 0 while the heartbeat file the
// worker writes every 5 s (worker/heartbeat.ts) is younger than three beats, else 1. Plain JavaScript, so a
// check costs one bare `node` start and no TypeScript loader.
import { statSync } from "node:fs";

const MAX_AGE_MS = 15_000;
const file = process.env.WORKER_HEALTH_FILE;
if (!file) {
  process.stderr.write("WORKER_HEALTH_FILE is not set: the worker writes no heartbeat\n");
  process.exit(1);
}
let age;
try {
  age = Date.now() - statSync(file).mtimeMs;
} catch {
  process.stderr.write(
    `no heartbeat at ${file}: the worker is starting, stopping or cannot reach Redis or the database\n`,
  );
  process.exit(1);
}
if (age > MAX_AGE_MS) {
  process.stderr.write(`last heartbeat ${Math.round(age / 1000)} s ago: Redis or the database does not answer\n`);
  process.exit(1);
}
