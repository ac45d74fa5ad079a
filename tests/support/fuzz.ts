import { createHash, createHmac } from "node:crypto";
import fc from "fast-check";
import { sql } from "kysely";
import { database, engine } from "~/data/database.server";
import { BASE_URL } from "./http";

/**
 * Property-based requests for the API fuzz test (tests/api/fuzz.test.ts), read from the OpenAPI document the
 * app serves: every operation, in every calling mode, with values its schemas allow and values they do not.
 * fast-check generates and shrinks; this module only says what to generate from the document.
 */

type Schema = {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  example?: unknown;
};

interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  required?: boolean;
  schema: Schema;
}

interface RawOperation {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  security?: Array<Record<string, string[]>>;
  "x-app-proxy"?: boolean;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, RawOperation>>;
  components: { schemas?: Record<string, Schema>; parameters?: Record<string, Parameter> };
}

export type Mode = "private" | "public" | "proxy" | "customerAccount";

const SECURITY_MODES: Record<string, Mode> = {
  privateKey: "private",
  publicKey: "public",
  customerAccount: "customerAccount",
};
export const MODES: readonly Mode[] = ["private", "public", "proxy", "customerAccount"];
const METHODS = ["get", "post", "put", "patch", "delete"];

export interface Operation {
  /** `GET /lists/{id}`, as the document names it. */
  name: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body: { required: boolean; schema: Schema } | null;
  /** The calling modes the document allows; the fuzz test calls every operation in every mode regardless. */
  modes: Mode[];
}

function resolve<T>(document: OpenApiDocument, value: T | { $ref: string }): T {
  if (typeof value === "object" && value !== null && "$ref" in value && typeof value.$ref === "string") {
    const target = value.$ref
      .replace(/^#\//, "")
      .split("/")
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], document);
    return resolve(document, target as T | { $ref: string });
  }
  return value as T;
}

/** Every operation of the document, with its parameters and JSON body schema resolved. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => {
        const body = operation.requestBody;
        const schema = body?.content["application/json"]?.schema;
        return {
          name: `${method.toUpperCase()} ${path}`,
          method: method.toUpperCase(),
          path,
          parameters: (operation.parameters ?? []).map((parameter) => resolve<Parameter>(document, parameter)),
          body: schema ? { required: Boolean(body?.required), schema } : null,
          modes: [
            ...(operation.security ?? []).flatMap((scheme) =>
              Object.keys(scheme).flatMap((name) => (SECURITY_MODES[name] ? [SECURITY_MODES[name]] : [])),
            ),
            // The app proxy is not a security requirement of /v1 (it works only under /proxy/v1): marked apart.
            ...(operation["x-app-proxy"] === true ? (["proxy"] as const) : []),
          ],
        };
      }),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Values

/**
 * Any code point, lone surrogates included, ASCII half the time. (fast-check's own full-Unicode units would
 * first map every code point, which costs a second or more per process.)
 */
const anyCharacter = fc
  .oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0x10ffff }))
  .map((code) => String.fromCodePoint(code));

/** Strings no schema expects: control characters, NUL, emoji, lone surrogates, 100 KB, injection attempts. */
const oddString: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "\u0000",
      "a\u0000b",
      "\u0000".repeat(64),
      "😀",
      "👨‍👩‍👧‍👦🏳️‍🌈",
      "\uFEFFbom",
      "\u202Egnp.exe",
      "\uD800",
      "a\uDFFFb",
      "\r\n\t",
      "../../etc/passwd",
      "' OR '1'='1' --",
      '"; DROP TABLE "Item"; --',
      "%00",
      "%",
      "%zz",
      "null",
      "undefined",
      "NaN",
      "-1",
      "-0",
      "0x10",
      "1e309",
      "9".repeat(40),
      "18446744073709551616",
      "<script>alert(1)</script>",
      "${{7*7}}",
      "gid://shopify/Product/",
      "gid://shopify/Customer/1",
      "lst_",
      "itm_../x",
      "ä".normalize("NFD"),
      "İ",
    ),
  },
  { weight: 8, arbitrary: fc.string({ unit: anyCharacter, maxLength: 40 }) },
  // About 100 KB: one repeated character, an emoji, NUL, or a generated run.
  {
    weight: 1,
    arbitrary: fc.constantFrom("a".repeat(100 * 1024), "😀".repeat(25 * 1024), "\u0000".repeat(100 * 1024)),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: anyCharacter, minLength: 1, maxLength: 8 })
      .map((run) => run.repeat(Math.ceil(100_000 / run.length))),
  },
);

/** A JSON value of a type a schema member usually does not have. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(-1, 0, 1.5, 2 ** 53, 2 ** 64, -(2 ** 63), Number.MAX_VALUE, 1e-300),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  oddString,
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

/** Replaces lone surrogates, which URLs cannot carry (`encodeURIComponent` throws on them). */
function wellFormed(value: string): string {
  return value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/** What a header may carry (Fetch refuses NUL, CR and LF, and anything past Latin-1). */
const headerSafe = (value: string) => value.replace(/[^\x20-\x7e\x80-\xff]/g, "").trim();

const oddHeaderValue: fc.Arbitrary<string> = fc.oneof(
  oddString.map(headerSafe),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).map((code) => String.fromCharCode(code)), maxLength: 80 }),
  fc.constantFrom("x".repeat(10_000), " ; ; ", "é", "\xff\xfe"),
);

/**
 * Values worth sending for a member or parameter, by name (`ids`: every service id known). The test adds to
 * them as it runs (the ids of what requests create), so the arrays are read at each draw. `<mode>:<name>`
 * overrides `<name>` in the clean calls of that calling mode; an empty array there leaves the member or
 * parameter out (a public key names no customer, say).
 */
export type Hints = Record<string, unknown[]>;

/** What values are drawn for: the document, the hints, clean or noisy, and the calling mode. */
interface Draw {
  document: OpenApiDocument;
  hints: Hints;
  clean: boolean;
  mode: Mode;
}

function hintFor(draw: Draw, name: string | undefined): unknown[] | undefined {
  if (name === undefined) return undefined;
  return (draw.clean ? draw.hints[`${draw.mode}:${name}`] : undefined) ?? draw.hints[name];
}

/** Whether a clean call of this mode leaves the member or parameter out. */
function leftOut(draw: Draw, name: string): boolean {
  return hintFor(draw, name)?.length === 0;
}

/**
 * Values a schema allows (near enough: the values of the hints come first for the members and parameters they
 * name, so that requests meet real ids, owners and products often enough to get past validation; clean calls
 * take only those).
 */
function valueOf(schema: Schema, draw: Draw, name?: string): fc.Arbitrary<unknown> {
  const hinted = hintFor(draw, name);
  if (hinted?.length && draw.clean) return fromPool(hinted);
  const plain = schemaValue(resolve(draw.document, schema), draw);
  return hinted?.length ? fc.oneof({ arbitrary: fromPool(hinted), weight: 3 }, { arbitrary: plain, weight: 1 }) : plain;
}

/** One value of a pool that may grow while the property runs. */
function fromPool<T>(pool: readonly T[], fallback?: fc.Arbitrary<T>): fc.Arbitrary<T> {
  const drawn = fc.nat({ max: 1_000_000 }).map((index) => pool[index % pool.length]!);
  return fallback ? fc.constant(0).chain(() => (pool.length ? drawn : fallback)) : drawn;
}

/**
 * Strings matching a schema's pattern, built once per pattern: arbitraries are immutable, and building one from a
 * regular expression costs about a third of a second (fast-check derives its biased values then), which the
 * operations' many schemas sharing a few id patterns paid again for each operation and calling mode.
 */
const patterns = new Map<string, fc.Arbitrary<string>>();
function matching(pattern: string): fc.Arbitrary<string> {
  let arbitrary = patterns.get(pattern);
  if (!arbitrary) patterns.set(pattern, (arbitrary = fc.stringMatching(new RegExp(pattern))));
  return arbitrary;
}

const httpsUrl = fc.webUrl({ validSchemes: ["https"] });

function schemaValue(schema: Schema, draw: Draw): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return fc.oneof(...variants.map((variant) => valueOf(variant, draw)));
  if (schema.allOf?.[0]) return valueOf(schema.allOf[0], draw);
  const type = Array.isArray(schema.type) ? schema.type.find((entry) => entry !== "null") : schema.type;
  switch (type) {
    case "string": {
      if (schema.pattern) {
        const pattern = matching(schema.pattern);
        return schema.maxLength === undefined ? pattern : pattern.filter((value) => value.length <= schema.maxLength!);
      }
      if (schema.format === "uuid") return fc.uuid();
      if (schema.format === "uri") return httpsUrl;
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 24, 24) });
    }
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000 });
    case "number":
      return fc.double({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000, noNaN: true });
    case "boolean":
      return fc.boolean();
    case "array":
      return fc.array(schema.items ? valueOf(schema.items, draw) : fc.jsonValue({ maxDepth: 1 }), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case "object": {
      const properties = Object.entries(schema.properties ?? {}).filter(([key]) => !leftOut(draw, key));
      const known = fc.record(
        Object.fromEntries(properties.map(([key, member]) => [key, valueOf(member, draw, key)])),
        {
          requiredKeys: (schema.required ?? []).filter((key) => !leftOut(draw, key)),
        },
      );
      if (typeof schema.additionalProperties !== "object") return known;
      const more = fc.dictionary(
        fc.string({ minLength: 1, maxLength: 8 }),
        valueOf(schema.additionalProperties, draw),
        {
          maxKeys: 2,
        },
      );
      return fc.tuple(more, known).map(([extra, listed]) => ({ ...extra, ...listed }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A body the schema allows, or one with a member missing, added, or of the wrong type, or another root. */
function bodyValue(schema: Schema, draw: Draw): fc.Arbitrary<unknown> {
  const valid = valueOf(schema, draw);
  const names = Object.keys(resolve(draw.document, schema).properties ?? {});
  const member = names.length ? fc.constantFrom(...names) : fc.string({ maxLength: 8 });
  const asObject = (value: unknown) =>
    typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return fc.oneof(
    { arbitrary: valid, weight: 4 },
    // A member missing (required ones included).
    { arbitrary: fc.tuple(valid, member).map(([body, name]) => omit(asObject(body), name)), weight: 2 },
    // A member of the wrong type, or an odd string.
    {
      arbitrary: fc
        .tuple(valid, member, wrongValue)
        .map(([body, name, value]) => ({ ...asObject(body), [name]: value })),
      weight: 3,
    },
    // A member no schema names (NUL and odd names included).
    {
      arbitrary: fc
        .tuple(valid, fc.oneof(fc.string({ maxLength: 12 }), oddString), fc.jsonValue({ maxDepth: 2 }))
        .map(([body, name, value]) => ({ ...asObject(body), [name]: value })),
      weight: 2,
    },
    // Another root: an array, a string, a number, null.
    { arbitrary: wrongValue, weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
  );
}

function omit(body: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _removed, ...rest } = body;
  return rest;
}

/** Request bodies that are not JSON, or JSON in odd shapes: truncated, single-quoted, very deep, over the cap. */
const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "{",
    "[",
    "}",
    '{"a":',
    "{'productId':'1'}",
    "{productId: 1}",
    "NaN",
    "undefined",
    "\u0000",
    "\uFEFF{}",
    "{}{}",
    "{} trailing",
    '{"a":1,}',
    '{"a":"\\u00"}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    "[".repeat(100_000),
    `${"[".repeat(20_000)}${"]".repeat(20_000)}`,
    `${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}`,
    "label=x&productId=1",
    '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
  ),
  fc
    .jsonValue()
    .map((value) => JSON.stringify(value) ?? "")
    .map((text) => text.slice(0, Math.max(0, text.length - 1))),
  fc.string({ unit: anyCharacter, maxLength: 60 }),
);

/** A JSON text over the 256 KiB cap of /v1 bodies. */
const oversizedJson = fc.constantFrom(
  JSON.stringify({ productId: "1", handle: "x", title: "a".repeat(300 * 1024) }),
  JSON.stringify({ label: "😀".repeat(70 * 1024) }),
);

const contentTypes = fc.oneof(
  { arbitrary: fc.constant("application/json"), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      "application/json; charset=utf-8",
      "application/JSON",
      "application/problem+json",
      "application/vnd.api+json",
      "text/plain",
      "text/json",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/octet-stream",
      "application/json;;",
      "application/json; charset",
      "application/json; charset=utf-16",
      "application/json, text/plain",
      "*/*",
      "json",
      "",
      " ",
    ),
    weight: 4,
  },
  { arbitrary: oddHeaderValue, weight: 1 },
);

// ---------------------------------------------------------------------------------------------------------
// Requests

export interface Credentials {
  shopDomain: string;
  privateKey: string;
  publicKey: string;
  /** The app's API key: the `aud` of the customer account session tokens. */
  apiKey: string;
  appSecret: string;
  /** A shop the app is installed on besides `shopDomain` (a session token for it reaches its lists only). */
  otherShopDomain: string;
  /** Keys that are not valid credentials of the shop: revoked, another shop's, made up. */
  badPrivateKeys: readonly string[];
  /** Origins declared in the shop's settings (a public-key call from another origin is refused). */
  origins: readonly string[];
}

export interface FuzzRequest {
  operation: string;
  mode: Mode;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  /** The Idempotency-Key the request carries, if any (its record is the one thing a refused POST may leave). */
  idempotencyKey: string | undefined;
}

interface Shape {
  mode: Mode;
  credential: "valid" | "broken";
  brokenVariant: number;
  method: string;
  path: string;
  query: Array<[string, string]>;
  headers: Array<[string, string]>;
  sent: { contentType: string | undefined; body: string | undefined };
  proxyCustomer: string;
  proxyAge: number;
  /** The customer a customer account session token names (clean calls: a customer of the hints). */
  accountCustomer: string;
}

/** Path segments whose percent-encoding or meaning is odd; sent as they are. */
const RAW_SEGMENTS = fc.constantFrom(
  "%",
  "%zz",
  "%E0%A4%A",
  "%C0%AF",
  "..",
  ".",
  "%2F",
  "a%2Fb",
  "%00",
  "%20",
  "%F0%9F%98%80",
);
/** Query pieces sent as they are: broken percent-encoding, separators without names or values. */
const RAW_QUERY = fc.constantFrom(
  "%",
  "%zz=1",
  "a=%E0%A4%A",
  "=",
  "&&",
  "a",
  "a==b",
  "limit=%00",
  "%00=1",
  "a[]=1&a[]=2",
);

function encode(value: string): string {
  return encodeURIComponent(wellFormed(value));
}

/** A path parameter: a real id (of the right kind or another), a made-up one, a wrong prefix, or junk. */
function pathValue(parameter: Parameter, draw: Draw): fc.Arbitrary<string> {
  const example = typeof parameter.schema.example === "string" ? parameter.schema.example : undefined;
  const prefix = example?.match(/^([a-z]+)_/)?.[1];
  const ids = (draw.hints.ids ?? []) as string[];
  const named = (draw.hints[parameter.name] ?? []) as string[];
  const schemaValueOf = schemaValue(parameter.schema, draw).map((value) => encode(String(value)));
  const madeUp = prefix ? matching("^[0-9a-hjkmnp-tv-z]{26}$").map((body) => `${prefix}_${body}`) : schemaValueOf;
  // A real id of the kind the parameter takes (the pool is read at each draw: it grows as the run creates things).
  const real = fc
    .nat({ max: 1_000_000 })
    .map((index) => {
      const good = [...(prefix ? ids.filter((id) => id.startsWith(`${prefix}_`)) : []), ...named];
      return good.length ? encode(good[index % good.length]!) : undefined;
    })
    .chain((id) => (id === undefined ? madeUp : fc.constant(id)));
  if (draw.clean) return fc.oneof({ arbitrary: real, weight: 6 }, { arbitrary: madeUp, weight: 1 });
  return fc.oneof(
    { arbitrary: real, weight: 6 },
    { arbitrary: fromPool(ids, madeUp).map(encode), weight: 2 },
    { arbitrary: matching("^[a-z]{2,5}_[0-9a-z]{1,30}$").map(encode), weight: 1 },
    { arbitrary: madeUp, weight: 2 },
    { arbitrary: schemaValueOf, weight: 1 },
    { arbitrary: oddString.filter((value) => value.length > 0).map(encode), weight: 2 },
    { arbitrary: RAW_SEGMENTS, weight: 1 },
  );
}

/** Occurrences of one query parameter: absent, once (good or bad value), or repeated. */
function queryOccurrences(parameter: Parameter, draw: Draw): fc.Arbitrary<Array<[string, string]>> {
  if (draw.clean && leftOut(draw, parameter.name)) return fc.constant([]);
  const good = valueOf(parameter.schema, draw, parameter.name).map((value) => String(value));
  const value = draw.clean
    ? good
    : fc.oneof(
        { arbitrary: good, weight: 8 },
        { arbitrary: oddString, weight: 1 },
        {
          arbitrary: wrongValue.map((entry) => (typeof entry === "string" ? entry : JSON.stringify(entry))),
          weight: 1,
        },
      );
  return fc
    .oneof(
      { arbitrary: fc.constant([] as string[]), weight: 3 },
      { arbitrary: value.map((entry) => [entry]), weight: 5 },
      { arbitrary: fc.array(value, { minLength: 2, maxLength: 3 }), weight: draw.clean ? 0 : 1 },
    )
    .map((values) => values.map((entry): [string, string] => [parameter.name, entry]));
}

/** `arbitrary`'s values once in `oneIn` draws, else null. */
function rarely<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> {
  return fc.oneof({ arbitrary: fc.constant(null), weight: oneIn - 1 }, { arbitrary, weight: 1 });
}

/** Parameters no operation declares, the app proxy's reserved names among them. */
const extraQuery = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(
        "shop",
        "logged_in_customer_id",
        "signature",
        "timestamp",
        "path_prefix",
        "aid",
        "customerId",
        "limit",
        "cursor",
        "itemId",
        "x",
      ),
      fc.string({ minLength: 1, maxLength: 10 }),
      oddString,
    ),
    fc.oneof(fc.string({ maxLength: 10 }), oddString),
  ),
  { minLength: 1, maxLength: 2 },
);

/**
 * Everything fuzzed about one call of `operation`, in each calling mode. Two fifths of the calls are clean:
 * a mode the operation documents, valid credentials, its own method, JSON bodies and parameters as the schemas
 * have them (with real ids, owners and products), so that they get past validation and into the handlers; the
 * others break any number of things at once.
 */
export function requestShape(operation: Operation, document: OpenApiDocument, hints: Hints): fc.Arbitrary<Shape> {
  const shapes = (clean: boolean) =>
    MODES.filter((mode) => !clean || operation.modes.includes(mode)).map((mode) => ({
      arbitrary: shapeOf(operation, { document, hints, clean, mode }),
      // Mostly the modes the operation documents; the others too (they must be refused, and cleanly).
      weight: operation.modes.includes(mode) ? 4 : 1,
    }));
  return fc
    .oneof({ arbitrary: fc.oneof(...shapes(true)), weight: 2 }, { arbitrary: fc.oneof(...shapes(false)), weight: 3 })
    .map(summarised);
}

/** A shape that fast-check prints (counterexamples) with its long strings cut. */
function summarised(shape: Shape): Shape {
  const cut = (_key: string, value: unknown) =>
    typeof value === "string" && value.length > 120 ? `${value.slice(0, 120)}... (${value.length} chars)` : value;
  return Object.assign(shape, { [fc.toStringMethod]: () => JSON.stringify(shape, cut) });
}

function shapeOf(operation: Operation, draw: Draw): fc.Arbitrary<Shape> {
  const { clean } = draw;
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === "path");
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === "query");
  const headerParameters = operation.parameters.filter((parameter) => parameter.in === "header");

  const path = fc
    .tuple(...pathParameters.map((parameter) => pathValue(parameter, draw)))
    .map((values) =>
      pathParameters.reduce(
        (template, parameter, index) => template.replace(`{${parameter.name}}`, values[index]!),
        operation.path,
      ),
    );

  const query = fc
    .tuple(
      fc.tuple(...queryParameters.map((parameter) => queryOccurrences(parameter, draw))),
      clean ? fc.constant(null) : rarely(extraQuery, 4),
      clean ? fc.constant(null) : rarely(RAW_QUERY, 15),
    )
    .map(([declared, extra, raw]) => {
      const pairs = [...declared.flat(), ...(extra ?? [])];
      return raw === null ? pairs : [...pairs, ["", raw] as [string, string]];
    });

  // Declared headers (Accept-Language, Idempotency-Key): a required one is mostly sent, an optional one now and
  // then; clean calls send an optional one with a fresh value (a new Idempotency-Key), the others reuse hints.
  const headers = fc
    .tuple(
      ...headerParameters.map((parameter) => {
        const good = (
          clean && !parameter.required
            ? schemaValue(parameter.schema, draw)
            : valueOf(parameter.schema, draw, parameter.name)
        ).map((value) => headerSafe(String(value)));
        const header = (
          clean ? good : fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: oddHeaderValue, weight: 1 })
        ).map((value): [string, string] => [parameter.name, value]);
        if (parameter.required) return clean ? header : fc.option(header, { freq: 6 });
        return rarely(header, clean ? 4 : 3);
      }),
      clean
        ? fc.constant(null)
        : rarely(
            oddHeaderValue.map((value): [string, string] => ["X-Request-Id", value]),
            15,
          ),
    )
    .map((entries) => entries.filter((entry): entry is [string, string] => entry !== null));

  type Sent = Shape["sent"];
  const none = fc.constant<Sent>({ contentType: undefined, body: undefined });
  const json = (value: unknown) => JSON.stringify(value) ?? "null";
  const body: fc.Arbitrary<Sent> = clean
    ? operation.body
      ? fc.record({
          contentType: fc.constant("application/json"),
          body: valueOf(operation.body.schema, draw).map(json),
        })
      : none
    : fc.oneof(
        { arbitrary: none, weight: operation.body ? 5 : 40 },
        {
          arbitrary: fc.record({
            contentType: fc.option(contentTypes, { freq: operation.body ? 15 : 8, nil: undefined }),
            body: (operation.body ? bodyValue(operation.body.schema, draw) : fc.jsonValue({ maxDepth: 2 })).map(json),
          }),
          weight: operation.body ? 70 : 5,
        },
        {
          arbitrary: fc.record({
            contentType: fc.option(contentTypes, { freq: 8, nil: undefined }),
            body: malformedJson,
          }),
          weight: 10,
        },
        {
          arbitrary: fc.record({ contentType: fc.constant("application/json"), body: fc.constantFrom("", " ", "\n") }),
          weight: 5,
        },
        { arbitrary: fc.record({ contentType: fc.constant("application/json"), body: oversizedJson }), weight: 1 },
      );

  return fc.record({
    mode: fc.constant(draw.mode),
    credential: clean
      ? fc.constant("valid" as const)
      : fc.oneof(
          { arbitrary: fc.constant("valid" as const), weight: 6 },
          { arbitrary: fc.constant("broken" as const), weight: 1 },
        ),
    brokenVariant: fc.nat(),
    method: clean
      ? fc.constant(operation.method)
      : fc.oneof(
          { arbitrary: fc.constant(operation.method), weight: 15 },
          {
            arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE_X"),
            weight: 1,
          },
        ),
    path,
    query,
    headers,
    sent: body,
    // The customer the platform signs as logged in ("" for a guest).
    proxyCustomer: fc.oneof(
      fc.constant(""),
      valueOf({ type: "string", pattern: "^[0-9]{1,20}$" }, draw, "logged_in_customer_id").map(String),
    ),
    proxyAge: clean
      ? fc.constant(0)
      : fc.oneof(
          { arbitrary: fc.constant(0), weight: 8 },
          { arbitrary: fc.constantFrom(120, -3_600, 86_400), weight: 1 },
        ),
    accountCustomer: valueOf({ type: "string", pattern: "^[0-9]{1,20}$" }, draw, "logged_in_customer_id").map(String),
  });
}

/** The platform's app proxy signature over the query as the server reads it (repeated names joined with commas). */
function proxySignature(search: URLSearchParams, secret: string): string {
  const values = new Map<string, string[]>();
  for (const [key, value] of search) if (key !== "signature") values.set(key, [...(values.get(key) ?? []), value]);
  const message = [...values.keys()]
    .sort((left, right) => left.localeCompare(right))
    .map((key) => `${key}=${values.get(key)!.join(",")}`)
    .join("");
  return createHmac("sha256", secret).update(message).digest("hex");
}

/**
 * A session token as the platform signs one for the customer account extension: a compact JWS, HS256 with the
 * app's secret, written here with node:crypto (independently of the library the app verifies it with; the fuzz
 * needs it synchronously).
 */
function sessionToken(claims: Record<string, unknown>, secret: string, alg = "HS256"): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const unsigned = `${part({ alg, typ: "JWT" })}.${part(claims)}`;
  return `${unsigned}.${createHmac("sha256", secret).update(unsigned).digest("base64url")}`;
}

/** The customer account extension's Authorization header for a shape: a valid token, or one of the broken ones. */
function accountAuthorization(shape: Shape, credentials: Credentials): string | undefined {
  const now = Math.floor(Date.now() / 1000);
  const valid = {
    dest: credentials.shopDomain,
    aud: credentials.apiKey,
    sub: `gid://shopify/Customer/${shape.accountCustomer}`,
    exp: now + 300,
    nbf: now,
    iat: now,
    jti: String(shape.brokenVariant),
  };
  const bearer = (claims: Record<string, unknown>, secret = credentials.appSecret, alg?: string) =>
    `Bearer ${sessionToken(claims, secret, alg)}`;
  if (shape.credential === "valid") return bearer(valid);
  const { sub: _sub, ...guest } = valid;
  const broken: Array<string | undefined> = [
    undefined,
    bearer(valid, "another-secret"),
    bearer({ ...valid, exp: now - 3_600 }),
    bearer({ ...valid, nbf: now + 3_600 }),
    bearer({ ...valid, aud: "another-app" }),
    // Valid, for the other shop: it reaches that shop's lists, never this shop's rows (404s).
    bearer({ ...valid, dest: credentials.otherShopDomain }),
    bearer({ ...valid, dest: "not a shop" }),
    bearer(guest),
    bearer({ ...valid, sub: shape.accountCustomer }),
    bearer(valid, credentials.appSecret, "none"),
    "Bearer a.b.c",
  ];
  return broken[shape.brokenVariant % broken.length];
}

/** The request a shape describes, with the calling mode's credentials (or broken ones). */
export function buildRequest(operation: Operation, shape: Shape, credentials: Credentials): FuzzRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of shape.headers) headers[name] = value;
  if (shape.sent.contentType !== undefined) headers["Content-Type"] = shape.sent.contentType;
  const query = shape.query.map(([name, value]) => (name === "" ? value : `${encode(name)}=${encode(value)}`));
  const broken = shape.credential === "broken";
  const variant = shape.brokenVariant;
  let prefix = "/v1";

  if (shape.mode === "private") {
    const keys = [
      "",
      "Bearer",
      `Bearer ${credentials.publicKey}`,
      `Basic ${credentials.privateKey}`,
      ...credentials.badPrivateKeys.map((key) => `Bearer ${key}`),
    ];
    const authorization = broken ? keys[variant % keys.length]! : `Bearer ${credentials.privateKey}`;
    if (!(broken && variant % keys.length === 0)) headers.Authorization = authorization;
  } else if (shape.mode === "customerAccount") {
    const authorization = accountAuthorization(shape, credentials);
    if (authorization !== undefined) headers.Authorization = authorization;
    // Sent from the platform's extension sandbox, now and then.
    if (shape.brokenVariant % 3 === 0) headers.Origin = "https://extensions.shopifycdn.com";
  } else if (shape.mode === "public") {
    headers["X-Service-Shop"] = credentials.shopDomain;
    headers["X-Service-Public-Key"] = credentials.publicKey;
    if (broken) {
      const breakers: Array<() => void> = [
        () => delete headers["X-Service-Public-Key"],
        () => (headers["X-Service-Public-Key"] = `${credentials.publicKey}x`),
        () => (headers["X-Service-Shop"] = "not a shop"),
        () => (headers["X-Service-Shop"] = "other-shop.myshopify.com"),
        () => (headers.Origin = "https://not-declared.example"),
      ];
      breakers[variant % breakers.length]!();
    } else if (variant % 4 === 0 && credentials.origins[0]) {
      headers.Origin = credentials.origins[0];
    }
  } else if (shape.mode === "proxy") {
    prefix = "/proxy/v1";
    const timestamp = String(Math.floor(Date.now() / 1000) - shape.proxyAge);
    const signed = [
      `shop=${encode(credentials.shopDomain)}`,
      `logged_in_customer_id=${encode(shape.proxyCustomer)}`,
      `path_prefix=${encode("/apps/service")}`,
      `timestamp=${timestamp}`,
    ];
    query.push(...signed);
  }

  let url = `${BASE_URL}${prefix}${shape.path}${query.length ? `?${query.join("&")}` : ""}`;
  if (shape.mode === "proxy") {
    let signature = proxySignature(new URL(url).searchParams, credentials.appSecret);
    if (broken) {
      const variants = [
        () => (signature = ""),
        () => (signature = signature.replace(/^./, (first) => (first === "0" ? "1" : "0"))),
        () => (signature = proxySignature(new URL(url).searchParams, "another-secret")),
        () => (url = url.replace(`logged_in_customer_id=${encode(shape.proxyCustomer)}`, "logged_in_customer_id=999")),
      ];
      variants[variant % variants.length]!();
    }
    if (!(broken && variant % 4 === 0)) url += `${url.includes("?") ? "&" : "?"}signature=${signature}`;
  }

  const method = shape.method;
  const body = method === "GET" || method === "HEAD" ? undefined : shape.sent.body;
  return {
    operation: operation.name,
    mode: shape.mode,
    method,
    url,
    headers,
    body,
    idempotencyKey: method === "POST" ? headers["Idempotency-Key"] : undefined,
  };
}

/** A short account of a request for a failure message (long strings cut). */
export function describeRequest(request: FuzzRequest): string {
  const cut = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}... (${text.length} chars)` : text);
  return [
    `${request.method} ${cut(request.url)} [${request.operation}, ${request.mode}]`,
    ...Object.entries(request.headers).map(([name, value]) => `${name}: ${cut(JSON.stringify(value))}`),
    request.body === undefined ? "(no body)" : cut(JSON.stringify(request.body)),
  ].join("\n  ");
}

// ---------------------------------------------------------------------------------------------------------
// The database, before and after

/**
 * A digest of every row of every table, per table (`IdempotencyRecord` per `key`): the row count, and on
 * SQLite a hash of the rows' contents, on PostgreSQL the sum of their row versions (`xmin`: every insert and
 * update writes a new one; reading a few thousand rows' contents after each of 10,000 requests would take
 * minutes there). `ApiKey` is hashed by content without `lastUsedAt` on both: authentication records a key's
 * use (at most once a minute) whatever the request then does.
 */
export interface DatabaseState {
  tables: Record<string, string>;
  idempotencyKeys: Record<string, string>;
}

/**
 * What changed between two states, but for the Idempotency-Key records of `idempotencyKey`: a refused POST
 * keeps its answer under its key, so that a retry gets the same answer (docs/decisions/007-api-layer.md).
 */
export function changesBetween(before: DatabaseState, after: DatabaseState, idempotencyKey?: string): string[] {
  const tables = Object.keys({ ...before.tables, ...after.tables }).filter(
    (table) => before.tables[table] !== after.tables[table],
  );
  const keys = Object.keys({ ...before.idempotencyKeys, ...after.idempotencyKeys }).filter(
    (key) => key !== idempotencyKey && before.idempotencyKeys[key] !== after.idempotencyKeys[key],
  );
  return [...tables, ...keys.map((key) => `IdempotencyRecord (key ${JSON.stringify(key)})`)];
}

const IDEMPOTENCY = "IdempotencyRecord";

export async function databaseState(): Promise<DatabaseState> {
  const tables = await tableNames();
  if (engine() === "postgres") {
    // The cluster's snapshot (next transaction id, those in progress) moves whenever any transaction writes, in
    // this database or another: the rows are summed again only then.
    const { rows: snapshot } = await sql<{ snapshot: string }>`SELECT pg_current_snapshot()::text AS snapshot`.execute(
      database(),
    );
    const marker = snapshot[0]!.snapshot;
    if (lastState?.marker === marker) return lastState.state;
    const versions = sql`count(*) || ':' || coalesce(sum(t.xmin::text::bigint), 0)`;
    const columns = tables.map((table) => {
      if (table === IDEMPOTENCY) {
        return sql`(SELECT coalesce(json_object_agg(k, h), '{}') FROM (SELECT t."key" AS k, ${versions} AS h FROM ${sql.table(table)} t GROUP BY t."key") g) AS ${sql.ref(table)}`;
      }
      const digest =
        table === "ApiKey"
          ? sql`count(*) || ':' || coalesce(sum(hashtextextended((to_jsonb(t) - 'lastUsedAt')::text, 0)), 0)`
          : versions;
      return sql`(SELECT ${digest} FROM ${sql.table(table)} t) AS ${sql.ref(table)}`;
    });
    const { rows } = await sql<Record<string, string>>`SELECT ${sql.join(columns)}`.execute(database());
    const { [IDEMPOTENCY]: keys, ...rest } = rows[0]!;
    const state = { tables: rest, idempotencyKeys: (keys ?? {}) as unknown as Record<string, string> };
    lastState = { marker, state };
    return state;
  }
  // SQLite: the reading connection's data_version moves when another connection (the app's writer) commits, so
  // the rows are read again only after a commit.
  const version = await database()
    .selectNoFrom(sql<number>`(SELECT data_version FROM pragma_data_version)`.as("version"))
    .executeTakeFirstOrThrow();
  if (lastState?.marker === version.version) return lastState.state;
  const state: DatabaseState = { tables: {}, idempotencyKeys: {} };
  for (const table of tables) {
    // Through the query builder, so that the statement runs on the reading connection.
    const rows = (await database()
      .selectFrom(table as "Shop")
      .selectAll()
      .execute()) as Array<Record<string, unknown>>;
    if (table === IDEMPOTENCY) {
      const byKey = new Map<string, Array<Record<string, unknown>>>();
      for (const record of rows) byKey.set(String(record.key), [...(byKey.get(String(record.key)) ?? []), record]);
      for (const [key, records] of byKey) state.idempotencyKeys[key] = rowsDigest(records);
    } else {
      if (table === "ApiKey") for (const key of rows) delete key.lastUsedAt;
      state.tables[table] = rowsDigest(rows);
    }
  }
  lastState = { marker: version.version, state };
  return state;
}

/** The last state read, and what told whether the database may have changed since (see databaseState). */
let lastState: { marker: string | number; state: DatabaseState } | undefined;

function rowsDigest(rows: Array<Record<string, unknown>>): string {
  const lines = rows.map((row) => JSON.stringify(row)).sort();
  return `${lines.length}:${createHash("sha1").update(lines.join("\n")).digest("hex")}`;
}

let tables: Promise<string[]> | undefined;

function tableNames(): Promise<string[]> {
  tables ??= database()
    .introspection.getTables()
    .then((found) =>
      found
        .map((table) => table.name)
        .filter((name) => !name.startsWith("_prisma"))
        .sort(),
    );
  return tables;
}
