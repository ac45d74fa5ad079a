import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { checkBreakingChanges } from "../../scripts/lib/breaking-changes";
import { ROOT } from "../../scripts/lib/databases";

// The breaking-change check (`npm run openapi:breaking`, docs/decisions/059-breaking-change-check.md) fed
// deliberately broken copies of the released document, one per kind of break.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const released: Json = JSON.parse(readFileSync(path.join(ROOT, "docs/openapi.released.json"), "utf8"));

const schema = (document: Json, name: string): Json => document.components.schemas[name];
const requestSchema = (document: Json, route: string, method: string): Json =>
  document.paths[route][method].requestBody.content["application/json"].schema;
const parameter = (document: Json, route: string, method: string, name: string): Json =>
  document.paths[route][method].parameters.find((candidate: Json) => candidate.name === name);
const rename = (object: Json, from: string, to: string) =>
  Object.fromEntries(Object.entries(object).map(([key, value]) => [key === from ? to : key, value]));

/**
 * Both documents cut down to the operations and webhooks a case is about, so that each run of Optic reads a
 * few operations rather than all of them (a full run takes most of a minute). Components stay whole.
 */
function only(document: Json, keep: { paths?: string[]; webhooks?: string[] }): Json {
  const pick = (section: Json | undefined, names: string[] = []) =>
    Object.fromEntries(Object.entries(section ?? {}).filter(([name]) => names.includes(name)));
  return { ...document, paths: pick(document.paths, keep.paths), webhooks: pick(document.webhooks, keep.webhooks) };
}

interface Case {
  kind: string;
  keep: { paths?: string[]; webhooks?: string[] };
  change: (document: Json) => void;
  /** What Optic's report says: the rule that caught it and its message. */
  reported: RegExp;
}

const BREAKING: Case[] = [
  {
    kind: "a removed path",
    keep: { paths: ["/lists/{id}"] },
    change: (document) => delete document.paths["/lists/{id}"],
    reported: /GET \/lists\/\{id\}: removed[\s\S]*\[prevent operation removal\]/,
  },
  {
    kind: "a removed response field",
    keep: { paths: ["/lists/{id}"] },
    change: (document) => {
      delete schema(document, "List").properties.count;
      schema(document, "List").required = schema(document, "List").required.filter((name: string) => name !== "count");
    },
    reported: /\[prevent removing response property\] cannot remove response property 'count'/,
  },
  {
    kind: "a renamed response field",
    keep: { paths: ["/lists/{id}"] },
    change: (document) => {
      const list = schema(document, "List");
      list.properties = rename(list.properties, "count", "itemCount");
      list.required = list.required.map((name: string) => (name === "count" ? "itemCount" : name));
    },
    reported: /\[prevent removing response property\] cannot remove response property 'count'/,
  },
  {
    kind: "a renamed request field",
    keep: { paths: ["/shop/settings"] },
    change: (document) => {
      const patch = schema(document, "SettingsPatch");
      patch.properties = rename(patch.properties, "guestEnabled", "guestsEnabled");
    },
    reported: /\[request properties kept\] cannot remove request property 'guestEnabled'/,
  },
  {
    kind: "a removed field of a webhook payload",
    keep: { webhooks: ["item.added"] },
    change: (document) => {
      const event = schema(document, "ItemAddedEvent");
      delete event.properties.shopDomain;
      event.required = event.required.filter((name: string) => name !== "shopDomain");
    },
    reported: /POST \/\(webhook\)\/item\.added[\s\S]*cannot remove response property 'shopDomain'/,
  },
  {
    kind: "a removed enum value of a request field",
    keep: { paths: ["/exports"] },
    change: (document) => {
      const format = requestSchema(document, "/exports", "post").properties.format;
      format.enum = format.enum.filter((value: string) => value !== "marketing_csv");
    },
    reported: /\[enum values kept \(request\)\] cannot remove enum value "marketing_csv"/,
  },
  {
    kind: "a removed enum value of a query parameter",
    keep: { paths: ["/analytics/activity"] },
    change: (document) => {
      const range = parameter(document, "/analytics/activity", "get", "range").schema;
      range.enum = range.enum.filter((value: string) => value !== "90d");
    },
    reported: /cannot remove enum option '90d' from query parameter 'range'/,
  },
  {
    kind: "a removed enum value of a response field",
    keep: { paths: ["/exports/{jobId}"] },
    change: (document) => {
      const status = schema(document, "TransferJob").properties.status;
      status.enum = status.enum.filter((value: string) => value !== "running");
    },
    reported: /\[enum values kept \(response\)\] cannot remove enum value "running"/,
  },
  {
    kind: "a request field's type narrowed (string to integer)",
    keep: { paths: ["/storefront/wishlists"] },
    change: (document) => {
      requestSchema(document, "/storefront/wishlists", "post").properties.name = { type: "integer" };
    },
    reported: /\[prevent request property type changes\] expected request body property 'name' not to be narrowed/,
  },
  {
    kind: "a type dropped from a request field's union (string or integer, to string)",
    keep: { paths: ["/storefront/wishlist/toggle"] },
    change: (document) => {
      const productId = requestSchema(document, "/storefront/wishlist/toggle", "post").properties.productId;
      productId.anyOf = productId.anyOf.filter((branch: Json) => branch.type !== "integer");
    },
    reported:
      /\[request types not narrowed\] cannot narrow request schema 'properties\/productId': type integer no longer accepted/,
  },
  {
    kind: "a maxLength added to a query parameter",
    keep: { paths: ["/lists"] },
    change: (document) => {
      parameter(document, "/lists", "get", "cursor").schema.maxLength = 64;
    },
    reported: /\[parameters kept and not narrowed\] cannot narrow query parameter 'cursor': maxLength none -> 64/,
  },
  {
    kind: "a request field's maxLength lowered",
    keep: { paths: ["/shop/settings"] },
    change: (document) => {
      schema(document, "SettingsPatch").properties.sharePath.maxLength = 100;
    },
    reported:
      /\[request constraints not narrowed\] cannot narrow request schema 'properties\/sharePath': maxLength 255 -> 100/,
  },
  {
    kind: "an optional request field made required",
    keep: { paths: ["/shop/settings"] },
    change: (document) => {
      schema(document, "SettingsPatch").required = ["guestEnabled"];
    },
    reported: /\[prevent changing request property to required\]/,
  },
  {
    kind: "a removed query parameter",
    keep: { paths: ["/storefront/wishlists"] },
    change: (document) => {
      const operation = document.paths["/storefront/wishlists"].post;
      operation.parameters = operation.parameters.filter((candidate: Json) => candidate.name !== "aid");
    },
    reported: /\[parameters kept and not narrowed\] cannot remove query parameter 'aid'/,
  },
  {
    kind: "a credential's scheme dropped from an operation (the public key from a storefront read)",
    keep: { paths: ["/storefront/wishlist"] },
    change: (document) => {
      const operation = document.paths["/storefront/wishlist"].get;
      operation.security = operation.security.filter((requirement: Json) => !("publicKey" in requirement));
    },
    reported: /\[security requirements kept\] cannot remove security requirement "publicKey"/,
  },
  {
    kind: "a removed response header",
    keep: { paths: ["/lists"] },
    change: (document) => {
      delete document.paths["/lists"].get.responses["200"].headers["X-Request-Id"];
    },
    reported: /\[response headers kept\] cannot remove response header 'X-Request-Id'/,
  },
];

describe("the breaking-change check", () => {
  it.each(BREAKING)("fails on $kind", async ({ keep, change, reported }) => {
    // GIVEN a copy of the released document broken in one place
    const broken = structuredClone(released);
    change(broken);
    // WHEN the check compares it with the released one
    const { passed, output } = await checkBreakingChanges(only(released, keep), only(broken, keep));
    // THEN it fails, and Optic's report names the break
    expect(passed).toBe(false);
    expect(output).toMatch(reported);
  });

  it("passes additions: a path, optional request fields and parameters, response fields, enum values, a webhook, a wider bound, a type more, a security scheme, a response header", async () => {
    const added = structuredClone(released);
    added.paths["/lists/{id}/notes"] = {
      get: {
        operationId: "getListNotes",
        responses: {
          "200": {
            description: "ok",
            content: { "application/json": { schema: { type: "object", properties: { notes: { type: "string" } } } } },
          },
        },
      },
    };
    schema(added, "List").properties.colour = { type: "string" };
    schema(added, "List").required.push("colour");
    schema(added, "SettingsPatch").properties.theme = { type: "string", maxLength: 40 };
    schema(added, "SettingsPatch").properties.sharePath.maxLength = 512;
    // A boolean that also takes "true" and "false": a request field that accepts one more type.
    schema(added, "SettingsPatch").properties.guestEnabled = {
      anyOf: [{ type: "boolean" }, { type: "string", enum: ["true", "false"] }],
    };
    parameter(added, "/lists", "get", "limit").description += " More to come.";
    added.paths["/lists"].get.parameters.push({
      name: "colour",
      in: "query",
      required: false,
      schema: { type: "string" },
    });
    requestSchema(added, "/exports", "post").properties.format.enum.push("tsv");
    schema(added, "TransferJob").properties.format.enum.splice(-1, 0, "tsv");
    schema(added, "ItemAddedEvent").properties.source = { type: "string" };
    added.webhooks["item.archived"] = structuredClone(added.webhooks["item.removed"]);
    added.webhooks["item.archived"].post.operationId = "onItemArchived";
    // Another way to call an operation, and another header in an answer.
    added.paths["/lists"].get.security.push({ customerAccount: [] });
    added.paths["/lists"].get.responses["200"].headers["X-Lists-Total"] = { schema: { type: "integer" } };
    const keep = {
      paths: ["/lists", "/lists/{id}", "/lists/{id}/notes", "/shop/settings", "/exports", "/exports/{jobId}"],
      webhooks: ["item.added", "item.archived"],
    };

    const { passed, output } = await checkBreakingChanges(only(released, keep), only(added, keep));

    expect(output).toMatch(/GET \/lists\/\{id\}\/notes: added/);
    expect(passed, output).toBe(true);
  });

  it("passes the document the code serves now against the released one (`npm run openapi:breaking`, as CI runs it)", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/openapi-breaking.ts"], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toMatch(/Checks: (\d+)\/\1 passed/);
    expect(stdout).toContain("no breaking change against docs/openapi.released.json");
  });
});
