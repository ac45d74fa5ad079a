/**
 * `npm run graphql:schema`: writes the platform's Admin GraphQL schema of our API version
 * (app/shopify-api-version.ts) to app/types/admin-<version>.schema.json, the file the codegen preset reads
 * instead of downloading it (.graphqlrc.ts; docs/decisions/040-generated-contract-types.md). Our machines
 * and CI reach the npm registry only: the schema comes from the platform's `@shopify/dev-mcp` package,
 * which ships its published Admin schemas by version, and is written as the preset writes a downloaded
 * one (a minified introspection result). Run it after changing the API version or SCHEMA_PACKAGE.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { buildClientSchema, introspectionFromSchema, type IntrospectionQuery } from "graphql";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";

/** The package and version the schema is taken from: pinned, so the file changes only when this does. */
const SCHEMA_PACKAGE = "@shopify/dev-mcp@1.16.0";

const root = path.resolve(import.meta.dirname, "..");
const target = path.join(root, `app/types/admin-${SHOPIFY_API_VERSION}.schema.json`);
const work = mkdtempSync(path.join(tmpdir(), "admin-schema-"));
try {
  const tarball = execFileSync("npm", ["pack", SCHEMA_PACKAGE, "--silent", "--pack-destination", work], {
    encoding: "utf8",
  }).trim();
  const member = `package/dist/data/admin_${SHOPIFY_API_VERSION}.json.gz`;
  execFileSync("tar", ["-xzf", path.join(work, tarball), "-C", work, member]);
  const shipped = JSON.parse(gunzipSync(readFileSync(path.join(work, member))).toString("utf8")) as {
    data: IntrospectionQuery;
  };
  // Through graphql-js: a result it cannot build a schema from fails here, and the package's own
  // documentation fields (not part of an introspection result) are left out.
  const schema = buildClientSchema(shipped.data);
  writeFileSync(target, JSON.stringify(introspectionFromSchema(schema)));
  const types = Object.keys(schema.getTypeMap()).length;
  process.stdout.write(`wrote ${path.relative(root, target)} (${types} types) from ${SCHEMA_PACKAGE}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
