/**
 * `npm run openapi:breaking`: fails when the API description served at /openapi.json breaks the released one,
 * docs/openapi.released.json (spec section 9: within v1 changes are additive only). Optic does the comparison
 * (scripts/lib/breaking-changes.ts; docs/decisions/059-breaking-change-check.md). `--release` then makes the
 * served document the released one (CONTRIBUTING.md, "How to release the API document").
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { checkBreakingChanges } from "./lib/breaking-changes";
import { documentText, servedOpenApiDocument } from "./lib/openapi-document";

const RELEASED = path.resolve(import.meta.dirname, "../docs/openapi.released.json");

const released = JSON.parse(readFileSync(RELEASED, "utf8")) as Record<string, unknown>;
const served = await servedOpenApiDocument();
const { passed, output } = await checkBreakingChanges(released, served);
// Passing, Optic's summary is enough (its report then lists every operation, each unchanged or added to).
process.stdout.write(passed ? `${output.split("\n\n")[0]}\n` : output);
if (!passed) {
  process.stderr.write(
    "\nThe served /openapi.json breaks docs/openapi.released.json (or Optic could not compare them). " +
      "Within v1 changes are additive only: keep what was released, add beside it.\n",
  );
  process.exit(1);
}
if (process.argv.includes("--release")) {
  writeFileSync(RELEASED, documentText(served));
  process.stdout.write("\nwrote docs/openapi.released.json: add the release to CHANGELOG.md\n");
} else {
  process.stdout.write("\nno breaking change against docs/openapi.released.json\n");
}
process.exit(0);
