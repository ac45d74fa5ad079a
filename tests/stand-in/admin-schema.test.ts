import { readFileSync } from "node:fs";
import path from "node:path";
import { CodeFileLoader } from "@graphql-tools/code-file-loader";
import { APP_SUBSCRIPTION_FRAGMENT } from "@shopify/shopify-api";
import { pluckConfig } from "@shopify/api-codegen-preset";
import {
  buildClientSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isRequiredInputField,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
  parse,
  validate,
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type GraphQLType,
} from "graphql";
import { loadConfig } from "graphql-config";
import { beforeAll, describe, expect, it } from "vitest";
import { SHOPIFY_API_VERSION } from "~/shopify-api-version";
import { standInAdminSchema } from "../../stand-in/admin-graphql";

/**
 * The stand-in's Admin GraphQL schema is written by hand (stand-in/admin-graphql.ts); the platform's is
 * the one the codegen types our queries from (app/types, docs/decisions/040-generated-contract-types.md).
 * Every type, field, argument, enum value and union member the stand-in declares must be the platform's,
 * with the same type, and every query the services send must be valid against both: the stand-in cannot
 * drift from the platform, nor answer a query the platform would refuse.
 */
const root = path.resolve(import.meta.dirname, "../..");
const platform = buildClientSchema(
  JSON.parse(readFileSync(path.join(root, `app/types/admin-${SHOPIFY_API_VERSION}.schema.json`), "utf8")),
);

/** The platform's type of the name the stand-in uses (the root types are named differently). */
function platformTypeOf(type: GraphQLNamedType): GraphQLNamedType | undefined {
  if (type === standInAdminSchema.getQueryType()) return platform.getQueryType() ?? undefined;
  if (type === standInAdminSchema.getMutationType()) return platform.getMutationType() ?? undefined;
  return platform.getType(type.name);
}

/** A type reference as the platform would write it: wrappers kept, root type names mapped. */
function written(type: GraphQLType, schema: GraphQLSchema): string {
  if (schema !== standInAdminSchema) return String(type);
  const text = String(type);
  const name = text.replace(/[[\]!]/g, "");
  const named = standInAdminSchema.getType(name);
  return named ? text.replace(name, platformTypeOf(named)?.name ?? name) : text;
}

/** What the stand-in declares that the platform does not have, or has with another type. */
function drift(): string[] {
  const found: string[] = [];
  for (const type of Object.values(standInAdminSchema.getTypeMap())) {
    if (type.name.startsWith("__") || isSpecifiedScalarType(type)) continue;
    const theirs = platformTypeOf(type);
    if (!theirs) {
      found.push(`${type.name}: no such type on the platform`);
      continue;
    }
    const kind = (named: GraphQLNamedType) => named.constructor.name;
    if (kind(type) !== kind(theirs)) {
      found.push(`${type.name}: a ${kind(type)} here, a ${kind(theirs)} on the platform`);
      continue;
    }
    if ((isObjectType(type) || isInterfaceType(type)) && (isObjectType(theirs) || isInterfaceType(theirs))) {
      const fields = theirs.getFields();
      for (const field of Object.values(type.getFields())) {
        const their = fields[field.name];
        const at = `${type.name}.${field.name}`;
        if (!their) {
          found.push(`${at}: no such field on the platform`);
          continue;
        }
        if (written(field.type, standInAdminSchema) !== String(their.type)) {
          found.push(`${at}: ${written(field.type, standInAdminSchema)} here, ${String(their.type)} on the platform`);
        }
        for (const arg of field.args) {
          const theirArg = their.args.find((candidate) => candidate.name === arg.name);
          if (!theirArg) found.push(`${at}(${arg.name}): no such argument on the platform`);
          else if (String(arg.type) !== String(theirArg.type)) {
            found.push(`${at}(${arg.name}): ${String(arg.type)} here, ${String(theirArg.type)} on the platform`);
          }
        }
        for (const theirArg of their.args) {
          const required = theirArg.type.toString().endsWith("!") && theirArg.defaultValue === undefined;
          if (required && !field.args.some((arg) => arg.name === theirArg.name)) {
            found.push(`${at}(${theirArg.name}): required on the platform, missing here`);
          }
        }
      }
      const interfaces = new Set(theirs.getInterfaces().map((face) => face.name));
      for (const face of type.getInterfaces()) {
        if (!interfaces.has(face.name)) found.push(`${type.name}: implements ${face.name}, not on the platform`);
      }
    }
    if (isInputObjectType(type) && isInputObjectType(theirs)) {
      const fields = theirs.getFields();
      for (const field of Object.values(type.getFields())) {
        const their = fields[field.name];
        if (!their) found.push(`${type.name}.${field.name}: no such input field on the platform`);
        else if (String(field.type) !== String(their.type)) {
          found.push(`${type.name}.${field.name}: ${String(field.type)} here, ${String(their.type)} on the platform`);
        }
      }
      for (const their of Object.values(fields)) {
        if (isRequiredInputField(their) && !type.getFields()[their.name]) {
          found.push(`${type.name}.${their.name}: required on the platform, missing here`);
        }
      }
    }
    if (isEnumType(type) && isEnumType(theirs)) {
      for (const value of type.getValues()) {
        if (!theirs.getValue(value.name)) found.push(`${type.name}.${value.name}: no such enum value on the platform`);
      }
    }
    if (isUnionType(type) && isUnionType(theirs)) {
      const members = new Set(theirs.getTypes().map((member) => member.name));
      for (const member of type.getTypes()) {
        if (!members.has(member.name)) found.push(`${type.name}: member ${member.name} not on the platform`);
      }
    }
    if (isScalarType(type) && !isScalarType(theirs)) found.push(`${type.name}: not a scalar on the platform`);
  }
  return found;
}

describe("the stand-in's Admin GraphQL schema", () => {
  it("declares only what the platform's schema has, with the same types", () => {
    expect(Object.keys(platform.getTypeMap()).length).toBeGreaterThan(1_000); // the real schema, not a stub
    expect(drift()).toEqual([]);
  });
});

describe("the queries the services send", () => {
  let documents: Array<{ name: string; document: DocumentNode }> = [];

  beforeAll(async () => {
    // The documents the codegen types (.graphqlrc.ts), plucked from app/ as the codegen plucks them.
    const config = await loadConfig({
      rootDir: root,
      throwOnMissing: true,
      extensions: [
        (api) => {
          api.loaders.documents.register(new CodeFileLoader({ pluckConfig }));
          return { name: "codegen" };
        },
      ],
    });
    const sources = await config!.getDefault().getDocuments();
    documents = sources.flatMap(({ document }) =>
      (document?.definitions ?? []).map((definition) => ({
        name: "name" in definition && definition.name ? definition.name.value : "(anonymous)",
        document: { kind: document!.kind, definitions: [definition] },
      })),
    );
  });

  it("are found in app/", () => {
    expect(documents.map((entry) => entry.name)).toEqual(
      expect.arrayContaining(["WishlistEmbedStatus", "WishlistListOwners", "WishlistMetafieldsSet"]),
    );
  });

  it("are valid against the platform's schema and the stand-in's", () => {
    const errors = (schema: GraphQLSchema) =>
      documents.flatMap(({ name, document }) => validate(schema, document).map((error) => `${name}: ${error.message}`));
    expect(errors(platform)).toEqual([]);
    expect(errors(standInAdminSchema)).toEqual([]);
  });
});

describe("the platform library's billing calls", () => {
  // The documents billing.request (a recurring plan), billing.check and billing.cancel send, read from the library
  // as installed (module constants), with the subscription fragment they interpolate.
  const billing = path.join(root, "node_modules/@shopify/shopify-api/dist/esm/lib/billing");
  const constant = (file: string, name: string) => {
    const found = new RegExp(`const ${name} = \`([\\s\\S]*?)\`;`).exec(readFileSync(path.join(billing, file), "utf8"));
    if (!found) throw new Error(`${name} not found in ${file}`);
    return found[1]!;
  };
  const documents = [
    ["request.mjs", "RECURRING_PURCHASE_MUTATION"],
    ["check.mjs", "HAS_PAYMENTS_QUERY"],
    ["cancel.mjs", "CANCEL_MUTATION"],
  ].map(([file, name]) => ({
    name: name!,
    document: parse(constant(file!, name!).replace("${APP_SUBSCRIPTION_FRAGMENT}", APP_SUBSCRIPTION_FRAGMENT)),
  }));

  it("are valid against the platform's schema and the stand-in's", () => {
    const errors = (schema: GraphQLSchema) =>
      documents.flatMap(({ name, document }) => validate(schema, document).map((error) => `${name}: ${error.message}`));
    expect(documents).toHaveLength(3);
    expect(errors(platform)).toEqual([]);
    expect(errors(standInAdminSchema)).toEqual([]);
  });
});
