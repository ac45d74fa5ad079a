// The rules `npm run openapi:breaking` has Optic check (docs/decisions/059-breaking-change-check.md): Optic's
// own breaking-changes ruleset, with its enum rule replaced, and the rules it lacks for this contract. A local
// ruleset is Optic's extension point: Optic loads this module by path and calls `rulesetConstructor`. Plain
// JavaScript because Optic loads it with require(), not through tsx.
import {
  OperationRule,
  RequestRule,
  ResponseBodyRule,
  ResponseRule,
  RuleError,
  Ruleset,
} from "@useoptic/rulesets-base";
import { BreakingChangesRuleset } from "@useoptic/standard-rulesets";

/**
 * Optic's rules that fail additions of this contract, replaced below. Its enum rule fails a value added to a
 * response enum; within v1 that is an addition (the webhook event types and the export formats have grown so):
 * `enum values kept` replaces it. Its request union rule fails a request field that comes to accept another
 * type (a string id that also takes an integer, as on 2026-11-28), and misses one that stops accepting a type
 * of its union: `request types not narrowed` replaces it.
 */
const REPLACED = ["request and response property enums", "prevent expanded in request union types"];

const UPPER_BOUNDS = ["maxLength", "maxItems", "maxProperties", "maximum", "exclusiveMaximum"];
const LOWER_BOUNDS = ["minLength", "minItems", "minProperties", "minimum", "exclusiveMinimum"];
/** Keywords whose value cannot be compared for "wider": any new or changed value narrows what is accepted. */
const EXACT = ["pattern", "format", "multipleOf", "const"];

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const shown = (value) => (value === undefined ? "none" : JSON.stringify(value));

/** How `after` accepts less than `before` by its own keywords (subschemas are facts of their own). */
function narrowings(before = {}, after = {}) {
  const found = [];
  for (const keyword of UPPER_BOUNDS) {
    if (after[keyword] !== undefined && !(before[keyword] !== undefined && after[keyword] >= before[keyword])) {
      found.push(`${keyword} ${shown(before[keyword])} -> ${shown(after[keyword])}`);
    }
  }
  for (const keyword of LOWER_BOUNDS) {
    if (after[keyword] !== undefined && !(before[keyword] !== undefined && after[keyword] <= before[keyword])) {
      found.push(`${keyword} ${shown(before[keyword])} -> ${shown(after[keyword])}`);
    }
  }
  for (const keyword of EXACT) {
    if (after[keyword] !== undefined && !same(before[keyword], after[keyword])) {
      found.push(`${keyword} ${shown(before[keyword])} -> ${shown(after[keyword])}`);
    }
  }
  if (after.uniqueItems === true && before.uniqueItems !== true) found.push("uniqueItems added");
  if (after.additionalProperties === false && before.additionalProperties !== false) {
    found.push("additionalProperties false added");
  }
  return found;
}

const enumOf = (schema = {}) =>
  Array.isArray(schema.enum) ? schema.enum : "const" in schema ? [schema.const] : undefined;

function removedValues(before, after) {
  const kept = new Set(after.map((value) => JSON.stringify(value)));
  return before.filter((value) => !kept.has(JSON.stringify(value))).map(shown);
}

const where = (fact) => fact.location.jsonPath.split("/").slice(-2).join("/");

/** Within v1 an enum keeps every value: a client may send it, or wait for it, whatever the side. */
const enumValuesKept = [
  new RequestRule({
    name: "enum values kept (request)",
    rule: (request) => {
      request.schema.changed((before, after) => {
        const was = enumOf(before.value.flatSchema);
        const is = enumOf(after.value.flatSchema);
        if (was === undefined && is !== undefined) {
          throw new RuleError({ message: `cannot restrict request schema '${where(after)}' to an enum.` });
        }
        const removed = was && is ? removedValues(was, is) : [];
        if (removed.length) {
          throw new RuleError({
            message: `cannot remove enum value ${removed.join(", ")} from request schema '${where(after)}'.`,
          });
        }
      });
    },
  }),
  new ResponseBodyRule({
    name: "enum values kept (response)",
    rule: (response) => {
      response.schema.changed((before, after) => {
        const was = enumOf(before.value.flatSchema);
        const is = enumOf(after.value.flatSchema);
        if (was === undefined) return;
        if (is === undefined) {
          throw new RuleError({ message: `cannot drop the enum of response schema '${where(after)}'.` });
        }
        const removed = removedValues(was, is);
        if (removed.length) {
          throw new RuleError({
            message: `cannot remove enum value ${removed.join(", ")} from response schema '${where(after)}'.`,
          });
        }
      });
    },
  }),
];

/**
 * A request property that goes away (removed or renamed) is ignored or refused (422 where the body allows no
 * other property) when an existing client sends it: Optic checks removals on the response side only.
 */
const requestPropertiesKept = new RequestRule({
  name: "request properties kept",
  rule: (request) => {
    request.property.removed((property) => {
      throw new RuleError({ message: `cannot remove request property '${property.value.key}'.` });
    });
  },
});

/** A bound added or tightened on what a client sends refuses requests that passed: Optic compares types only. */
const requestConstraintsKept = new RequestRule({
  name: "request constraints not narrowed",
  rule: (request) => {
    request.schema.changed((before, after) => {
      const found = narrowings(before.value.flatSchema, after.value.flatSchema);
      if (found.length) {
        throw new RuleError({ message: `cannot narrow request schema '${where(after)}': ${found.join("; ")}.` });
      }
    });
  },
});

/** The JSON types a schema accepts, through anyOf and oneOf; undefined when it does not say (any type). */
function typesOf(schema) {
  if (!schema || typeof schema !== "object") return undefined;
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) {
    const types = new Set();
    for (const branch of branches) {
      const branchTypes = typesOf(branch);
      if (branchTypes === undefined) return undefined;
      for (const type of branchTypes) types.add(type);
    }
    return types;
  }
  if (schema.type === undefined) return undefined;
  return new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
}

const isUnion = (schema) => Boolean(schema && (schema.anyOf || schema.oneOf || Array.isArray(schema.type)));

/** A request field of several types that stops accepting one of them (Optic compares single types only). */
const requestTypesKept = new RequestRule({
  name: "request types not narrowed",
  rule: (request) => {
    request.schema.changed((before, after) => {
      if (!isUnion(before.raw) && !isUnion(after.raw)) return;
      const was = typesOf(before.raw);
      const is = typesOf(after.raw);
      if (was === undefined || is === undefined) return;
      const lost = [...was].filter((type) => !is.has(type) && !(type === "integer" && is.has("number")));
      if (lost.length) {
        throw new RuleError({
          message: `cannot narrow request schema '${where(after)}': type ${lost.join(", ")} no longer accepted.`,
        });
      }
    });
  },
});

const PARAMETER_LOCATIONS = ["query", "header", "cookie", "path"];

/** The same two rules for parameters: kept, and their schemas not narrowed. */
const parametersKept = new OperationRule({
  name: "parameters kept and not narrowed",
  rule: (operation) => {
    for (const location of PARAMETER_LOCATIONS) {
      const parameters = operation[`${location}Parameter`];
      if (location !== "path") {
        parameters.removed((parameter) => {
          throw new RuleError({ message: `cannot remove ${location} parameter '${parameter.value.name}'.` });
        });
      }
      parameters.changed((before, after) => {
        const found = narrowings(before.value.schema, after.value.schema);
        if (found.length) {
          throw new RuleError({
            message: `cannot narrow ${location} parameter '${after.value.name}': ${found.join("; ")}.`,
          });
        }
      });
    }
  },
});

/** The security requirements an operation is called with, each as its sorted scheme names. */
const requirementsOf = (operation) =>
  (operation.security ?? operation.raw?.security ?? []).map((requirement) =>
    Object.keys(requirement).sort().join(" + "),
  );

/**
 * Every credential that could call an operation still can: a scheme dropped from an operation (the public key from
 * a storefront operation, say) refuses every client holding only that credential. Optic compares no security.
 */
const securityKept = new OperationRule({
  name: "security requirements kept",
  rule: (operation) => {
    operation.changed((before, after) => {
      const kept = new Set(requirementsOf(after));
      const dropped = requirementsOf(before).filter((requirement) => !kept.has(requirement));
      if (dropped.length) {
        throw new RuleError({ message: `cannot remove security requirement ${dropped.map(shown).join(", ")}.` });
      }
    });
  },
});

/** A response header a client reads (Retry-After, Location, Idempotent-Replayed, ...) stays: Optic lets it go. */
const responseHeadersKept = new ResponseRule({
  name: "response headers kept",
  rule: (response) => {
    response.header.removed((header) => {
      throw new RuleError({ message: `cannot remove response header '${header.value.name}'.` });
    });
  },
});

export const configSchema = {};

export function rulesetConstructor() {
  return new Ruleset({
    name: "wishlist v1 contract",
    rules: [
      ...new BreakingChangesRuleset().rules.filter((rule) => !REPLACED.includes(rule.name)),
      ...enumValuesKept,
      requestPropertiesKept,
      requestConstraintsKept,
      requestTypesKept,
      parametersKept,
      securityKept,
      responseHeadersKept,
    ],
  });
}
