/**
 * The headless storefront example (examples/headless-storefront) built and served as a developer would run it, for
 * its browser test and its page-load benchmark: `vite build` then `vite preview` of its own vite.config.ts, the
 * settings in the environment (examples/headless-storefront/server/settings.ts), the build in a folder of the
 * caller's. `vite preview` mounts the example's storefront server, as `npm run example` does.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import path from "node:path";
import type { StorefrontSettings } from "../../examples/headless-storefront/server/settings";
import { ROOT } from "./databases";

const VITE = path.join(ROOT, "node_modules/vite/bin/vite.js");
const EXAMPLE = path.join(ROOT, "examples/headless-storefront");

/** The example's own settings (its server reads them from these variables or the demo shop's file). */
export type HeadlessExampleSettings = StorefrontSettings;

/** The example's settings as its environment variables (and no demo file to fall back on). */
export function exampleEnvironment(settings: HeadlessExampleSettings): Record<string, string> {
  return {
    WISHLIST_URL: settings.wishlistUrl,
    WISHLIST_SHOP: settings.shopDomain,
    WISHLIST_PUBLIC_KEY: settings.publicKey,
    WISHLIST_PRIVATE_KEY: settings.privateKey,
    STOREFRONT_ORIGIN: settings.storefrontOrigin,
    STOREFRONT_ACCESS_TOKEN: settings.storefrontAccessToken,
    DEMO_SHOP_FILE: path.join(ROOT, ".data", "no-demo-shop.json"),
  };
}

/** Runs Vite's command line on the example (`vite <args> examples/headless-storefront`), as `npm run example` does. */
export function spawnExampleVite(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [VITE, ...args, EXAMPLE], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Builds the example into `outDir` (`vite build`); throws with Vite's output when the build fails. */
export function buildHeadlessExample(settings: HeadlessExampleSettings, outDir: string): void {
  const result = spawnSync(
    process.execPath,
    [VITE, "build", EXAMPLE, "--outDir", outDir, "--emptyOutDir", "--logLevel", "warn"],
    { cwd: ROOT, env: { ...process.env, ...exampleEnvironment(settings) }, encoding: "utf8" },
  );
  if (result.status !== 0) throw new Error(`vite build of the example failed:\n${result.stdout}${result.stderr}`);
}

/**
 * Serves a build of the example on 127.0.0.1:`port` (`vite preview`) and resolves once its page answers. The
 * caller stops the child.
 */
export async function previewHeadlessExample(
  settings: HeadlessExampleSettings,
  { outDir, port }: { outDir: string; port: number },
): Promise<{ origin: string; child: ChildProcess; output: () => string }> {
  const child = spawnExampleVite(
    ["preview", "--outDir", outDir, "--port", String(port), "--strictPort", "--host", "127.0.0.1"],
    exampleEnvironment(settings),
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const origin = `http://127.0.0.1:${port}`;
  const started = Date.now();
  while (Date.now() - started < 90_000) {
    if ((await fetch(`${origin}/`).catch(() => null))?.ok) return { origin, child, output: () => output };
    if (child.exitCode !== null) throw new Error(`vite preview exited (${child.exitCode}):\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill("SIGKILL");
  throw new Error(`vite preview did not answer ${origin} within 90 s:\n${output}`);
}
