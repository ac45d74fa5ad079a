/**
 * The SDK's types are those of the document the app serves (issue 31): regenerated here from the served
 * /openapi.json, they must equal the committed api-types/openapi.ts the SDK builds from (`npm run openapi`
 * rewrites it).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/lib/databases";
import { createTestApp } from "../support/http";

describe("the SDK's types", () => {
  it("are generated from the served document, unchanged since", async () => {
    const app = await createTestApp();
    const served = await (await app.request("http://localhost:3000/openapi.json")).json();
    const generated = astToString(await openapiTS(served, { alphabetize: true }));
    const committed = readFileSync(path.join(ROOT, "api-types/openapi.ts"), "utf8");
    expect(committed.slice(committed.indexOf("\n") + 1), "run `npm run openapi`").toBe(generated);
  });
});
