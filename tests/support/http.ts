import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import { createHttpApp } from "~/api/http-app.server";
import { database } from "~/data/database.server";
import { ROOT } from "../../scripts/lib/databases";

/**
 * The web process's HTTP application in-process, with the production Remix build (`npm test` builds
 * it first). Requests run through every layer the server runs; only the socket is skipped.
 *
 * The build is imported at the first request that reaches Remix, not before: it carries the whole admin
 * (Polaris, React, recharts, the platform's library), and importing it is most of a test file's start-up,
 * which a file that only calls `/v1` would pay for nothing (docs/decisions/042-test-time.md).
 */
export async function createTestApp() {
  database();
  let remix: Promise<(request: Request) => Promise<Response>> | undefined;
  const loadRemix = async () => {
    const buildUrl = pathToFileURL(path.join(ROOT, "build/server/index.js")).href;
    const build = (await import(/* @vite-ignore */ buildUrl)) as ServerBuild;
    return createRequestHandler(build, "production");
  };
  return createHttpApp({ remix: async (request) => (await (remix ??= loadRemix()))(request) });
}

export const BASE_URL = "http://localhost:3000";
