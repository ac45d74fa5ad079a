// Web process entry: validate the environment before anything else loads, then start the server.
import { EnvError, getEnv, loadDotEnv } from "../app/env.server";

loadDotEnv();
try {
  getEnv();
} catch (error) {
  if (!(error instanceof EnvError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
}

const { startWebServer } = await import("./web");
await startWebServer();
