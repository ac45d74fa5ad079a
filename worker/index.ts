// Worker process entry: validate the environment before anything else loads, then start consuming.
import { loadEnvOrExit } from "~/env.server";

process.env.SERVICE_ROLE = "worker";
loadEnvOrExit();
const { startWorker } = await import("./main");
await startWorker();
