/**
 * `npm run theme:check` (CI): the platform's theme check over the theme app extension, with its rules for
 * theme app extensions (extensions/wishlist-theme/.theme-check.yml). Fails on any error or warning; no
 * check is turned off. Offline, it uses the theme docs bundled with the package (it says so on stderr).
 */
import path from "node:path";
import { check } from "@shopify/theme-check-node";

const SEVERITY = ["error", "warning", "info"] as const;
const root = path.resolve(import.meta.dirname, "../extensions/wishlist-theme");
const offenses = await check(root, path.join(root, ".theme-check.yml"));
for (const offense of offenses) {
  const file = path.relative(root, new URL(offense.uri).pathname);
  process.stdout.write(
    `${SEVERITY[offense.severity] ?? offense.severity} ${offense.check} ${file}:${offense.start.line + 1} ${offense.message}\n`,
  );
}
const failing = offenses.filter((offense) => offense.severity <= 1);
process.stdout.write(`theme check: ${failing.length} errors and warnings, ${offenses.length - failing.length} notes\n`);
if (failing.length) process.exit(1);
