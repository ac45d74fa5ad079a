/**
 * The GraphQL config of `npm run graphql:codegen`, as the platform's app template writes it: the platform's
 * codegen preset types every Admin API operation marked `#graphql` in app/ (admin.generated.d.ts) and the
 * schema's types (admin.types.d.ts), in app/types. The preset reads the schema from
 * app/types/admin-<version>.schema.json when the file is there, as it is here (`npm run graphql:schema`;
 * docs/decisions/040-generated-contract-types.md), so the codegen never downloads anything.
 */
import { ApiType, shopifyApiProject } from "@shopify/api-codegen-preset";
import type { IGraphQLConfig } from "graphql-config";
import { SHOPIFY_API_VERSION } from "./app/shopify-api-version";

const config: IGraphQLConfig = {
  projects: {
    default: shopifyApiProject({
      apiType: ApiType.Admin,
      apiVersion: SHOPIFY_API_VERSION,
      documents: ["./app/**/*.{ts,tsx}", "!./app/types/**", "!./app/generated/**"],
      outputDir: "./app/types",
      enumsAsConst: true,
      // The operations are typed by their text through our client's interfaces, not @shopify/admin-api-client.
      module: "~/services/platform/admin-operations",
    }),
  },
};

export default config;
