import { execFileSync } from "node:child_process";

/**
 * Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). Playwright never
 * downloads a browser here: it drives this binary. CHROMIUM_PATH overrides the lookup.
 */
export function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  try {
    return execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error("Chromium is not installed: apt-get install chromium (or set CHROMIUM_PATH)");
  }
}

/**
 * Headless, no sandbox (root in CI), and none of the browser's own background traffic: the machine has
 * no network beyond loopback, and those connections would only be refused.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

export const DESKTOP_USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36";

/**
 * How long a page action or navigation may take before the test fails: a bound for a hang, generous so
 * that the browser tests hold on a loaded machine (issue 16, item 6), never a measure of speed.
 */
export const PAGE_TIMEOUT_MS = 90_000;
