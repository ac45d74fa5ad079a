// Web process entry: validate the environment before anything else loads, then start the server.
import { loadEnvOrExit } from "~/env.server";

loadEnvOrExit();
const { startWebServer } = await import("./web");
await startWebServer();
