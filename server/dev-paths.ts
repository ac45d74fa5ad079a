import { statSync } from "node:fs";
import path from "node:path";

/**
 * Which requests the development server hands to Vite (issue 11, item 3). Vite in middleware mode serves
 * any file under the project root (the SQLite database, the demo keys, package.json, the build's server
 * bundle, ...) and transforms any source module, server ones included. Only the bundler's own paths and
 * the modules a browser loads go to it; everything else goes straight to the app, which serves routes and
 * never files. Vite's `server.fs` options (vite.config.ts) repeat the file rules for `/@fs/` paths.
 */

/** Files that never go to a browser, wherever they sit. */
const DENIED_FILES = [
  /\.(db|sqlite3?)(-wal|-shm|-journal)?$/i, // databases
  /^\.env/i, // environment files
  /^package(-lock)?\.json$/i,
  /\.(pem|crt|key)$/i,
  /\.server(\.[^/]*)?$/i, // server-only modules (Remix never sends them to the browser)
];

function decodePath(url: string): string | undefined {
  const raw = url.split(/[?#]/, 1)[0] ?? "";
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** The segments of a decoded absolute path, or undefined when it is not a plain path (`..`, `\`, NUL). */
function segmentsOf(decoded: string): string[] | undefined {
  if (!decoded.startsWith("/") || decoded.includes("\\") || decoded.includes("\0")) return undefined;
  const segments = decoded.slice(1).split("/");
  return segments.some((segment) => segment === "." || segment === "..") ? undefined : segments;
}

/**
 * A project file the browser may load in development: client modules under app/, packages' files and the
 * guides' screenshots.
 */
function isBrowserModule(segments: string[]): boolean {
  const [top, ...rest] = segments;
  const file = segments.at(-1) ?? "";
  if (DENIED_FILES.some((pattern) => pattern.test(file))) return false;
  const directories = rest.slice(0, -1);
  if (top === "app") {
    // Server-only modules and the generated database client stay on the server.
    return !rest.some((segment) => segment.startsWith(".") || segment.endsWith(".server")) && rest[0] !== "generated";
  }
  if (top === "docs") {
    // The guides' screenshots, which /help shows (in a build they are assets); nothing else of docs/.
    return rest.length === 2 && rest[0] === "screenshots" && /^[\w-]+\.png$/.test(file);
  }
  if (top === "node_modules") {
    // Vite's pre-bundled dependencies sit in node_modules/.vite; no other hidden path, and no database client.
    const [first, ...others] = rest;
    if (first === undefined || (first.startsWith(".") && first !== ".vite")) return false;
    if ([first, ...others].some((segment, index) => index > 0 && segment.startsWith("."))) return false;
    return !directories.some((segment) => segment === "prisma" || segment === "@prisma") && first !== "prisma";
  }
  return false;
}

export function createViteGate(root: string, publicDir: string) {
  const isPublicFile = (segments: string[]) => {
    if (segments.some((segment) => segment.startsWith("."))) return false;
    try {
      return statSync(path.join(publicDir, ...segments)).isFile();
    } catch {
      return false;
    }
  };
  /** Whether Vite may see this request; otherwise the app handles it (and answers 404 for a file path). */
  return (url: string | undefined): boolean => {
    const decoded = decodePath(url ?? "/");
    const segments = decoded === undefined ? undefined : segmentsOf(decoded);
    if (decoded === undefined || segments === undefined) return false;
    if (decoded.startsWith("/@vite/") || decoded === "/@react-refresh") return true;
    // Virtual and bare module ids (`/@id/__x00__virtual:remix/...`), never a file path.
    if (decoded.startsWith("/@id/")) return /^[\w@]/.test(decoded.slice(5)) && !decoded.includes("/.");
    if (decoded.startsWith("/@fs/")) {
      const relative = path.relative(root, decoded.slice("/@fs".length));
      if (relative.startsWith("..") || path.isAbsolute(relative)) return false;
      return isBrowserModule(relative.split(path.sep));
    }
    return isBrowserModule(segments) || isPublicFile(segments);
  };
}
