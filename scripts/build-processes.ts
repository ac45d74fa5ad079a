// `npm run build` (after the Remix build): the web and worker processes as compiled JavaScript (scripts/lib/processes.ts).
import { buildProcesses } from "./lib/processes";

await buildProcesses();
