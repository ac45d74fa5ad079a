import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler, type ServerBuild } from "@remix-run/node";
import { createHttpApp } from "~/api/http-app.server";
import { database } from "~/data/database.server";
import { ROOT } from "../../scripts/lib/databases";

/**
 * The web process's HTTP application in-process, with the production Remix build (`npm test` builds
 * it first). Requests run through every layer the server runs; only the socket is skipped.
 */
export async function createTestApp() {
  database();
  const buildUrl = pathToFileURL(path.join(ROOT, "build/server/index.js")).href;
  const build = (await import(/* @vite-ignore */ buildUrl)) as ServerBuild;
  const remix = createRequestHandler(build, "production");
  return createHttpApp({ remix: (request) => remix(request) });
}

export const BASE_URL = "http://localhost:3000";
