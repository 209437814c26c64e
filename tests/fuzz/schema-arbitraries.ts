// JSON Schema (the subset the OpenAPI document uses) → fast-check arbitraries: values the schema
// accepts, and hostile values derived from the same schema (wrong types, just outside its bounds,
// huge and odd strings).
import fc from "fast-check";

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  nullable?: boolean;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  example?: unknown;
  default?: unknown;
}

export interface SchemaContext {
  /** `components.schemas` of the document, for `$ref`. */
  schemas: Record<string, JsonSchema>;
  /** Strings that name real rows (ids); mixed into strings whose pattern they match. */
  knownStrings: string[];
  /**
   * Values that really work for a parameter or property of this name, which a schema cannot say
   * (eventId: ids of real events; message: a signed SIWE message).
   */
  knownValues: Record<string, unknown[]>;
}

/** `arbitrary`, or mostly a value known to work for `name` when there are some. */
export function withKnownValues(name: string, arbitrary: fc.Arbitrary<unknown>, context: SchemaContext): fc.Arbitrary<unknown> {
  const known = context.knownValues[name] ?? [];
  if (known.length === 0) return arbitrary;
  return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary });
}

/** Follows `$ref` and merges `allOf`, so callers see one plain schema. */
export function resolve(schema: JsonSchema, context: SchemaContext): JsonSchema {
  if (schema.$ref) {
    const name = schema.$ref.replace(/^#\/components\/schemas\//, "");
    const target = context.schemas[name];
    if (!target) throw new Error(`unresolvable $ref ${schema.$ref}`);
    return resolve(target, context);
  }
  if (schema.allOf) {
    const parts = schema.allOf.map((part) => resolve(part, context));
    const { allOf: _allOf, ...rest } = schema;
    return parts.reduce<JsonSchema>((merged, part) => ({
      ...merged,
      ...part,
      properties: { ...merged.properties, ...part.properties },
      required: [...(merged.required ?? []), ...(part.required ?? [])],
    }), rest);
  }
  return schema;
}

/** The JSON types a schema admits; "any" when it does not say. */
export function typesOf(schema: JsonSchema): string[] {
  const declared = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  const types = declared.length > 0 ? [...declared] : schema.properties ? ["object"] : schema.items ? ["array"] : [];
  if (schema.nullable && !types.includes("null")) types.push("null");
  return types.length > 0 ? types : ["any"];
}

export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const admits = (types: string[], value: unknown) => {
  const type = jsonTypeOf(value);
  return types.includes("any") || types.includes(type) || (type === "integer" && types.includes("number"));
};

/** The branch of an anyOf/oneOf (or the schema itself) that describes `value`. */
function branchFor(value: unknown, schema: JsonSchema, context: SchemaContext): JsonSchema {
  const resolved = resolve(schema, context);
  const branches = resolved.anyOf ?? resolved.oneOf;
  if (!branches) return resolved;
  const matching = branches.map((b) => resolve(b, context)).find((b) => admits(typesOf(b), value));
  return matching ?? resolved;
}

// ---------------------------------------------------------------------------------------------
// Valid values
// ---------------------------------------------------------------------------------------------

const OFFSETS = ["Z", "+00:00", "-00:00", "+01:00", "-01:00", "+05:45", "+14:00", "-12:00"];

/**
 * RFC 3339 date-times: mostly in this century, sometimes anywhere in years 1-9999 with any offset
 * and up to nanoseconds (so `9999-12-31T23:30:00-01:00`, an instant in year 10000, is among them).
 */
export const dateTimeArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: wallClock(new Date("1990-01-01T00:00:00Z"), new Date("2100-01-01T00:00:00Z"), ["", ".5", ".123"]) },
  { weight: 2, arbitrary: wallClock(new Date("0001-01-01T00:00:00Z"), new Date("9999-12-31T23:59:59Z"), ["", ".123", ".123456", ".123456789"]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "9999-12-31T23:30:00-01:00", "9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.9999Z", "0001-01-01T00:00:00+14:00",
      "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999Z", "2026-02-29T12:00:00Z", "2026-12-05T24:00:00Z", "2026-12-05T19:00:60Z",
    ),
  },
);

function wallClock(min: Date, max: Date, fractions: string[]): fc.Arbitrary<string> {
  return fc
    .tuple(fc.date({ min, max, noInvalidDate: true }), fc.constantFrom(...fractions), fc.constantFrom(...OFFSETS))
    .map(([wall, fraction, offset]) => `${wall.toISOString().slice(0, 19)}${fraction}${offset}`);
}

// Building a stringMatching arbitrary parses its regex: done once per pattern, not per request.
const patternArbitraries = new Map<string, fc.Arbitrary<string>>();
export function matching(pattern: RegExp): fc.Arbitrary<string> {
  let arbitrary = patternArbitraries.get(pattern.source);
  if (!arbitrary) patternArbitraries.set(pattern.source, (arbitrary = fc.stringMatching(pattern)));
  return arbitrary;
}

const withinLength = (schema: JsonSchema) => (s: string) =>
  s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Number.MAX_SAFE_INTEGER);

function validString(schema: JsonSchema, context: SchemaContext): fc.Arbitrary<string> {
  const choices: Array<fc.WeightedArbitrary<string>> = [];
  if (schema.format === "date-time") {
    choices.push({ weight: 6, arbitrary: dateTimeArbitrary });
  } else if (schema.pattern) {
    const pattern = new RegExp(schema.pattern);
    choices.push({ weight: 3, arbitrary: matching(pattern).filter(withinLength(schema)) });
    const known = context.knownStrings.filter((s) => pattern.test(s));
    if (known.length > 0) choices.push({ weight: 3, arbitrary: fc.constantFrom(...known) });
  } else {
    const minLength = schema.minLength ?? 0;
    const maxLength = Math.min(schema.maxLength ?? 64, 10_000);
    choices.push(
      { weight: 3, arbitrary: fc.string({ minLength, maxLength }) },
      { weight: 1, arbitrary: fc.string({ minLength, maxLength, unit: "grapheme" }).filter(withinLength(schema)) },
      // The bounds themselves are valid and often where off-by-one mistakes live.
      { weight: 1, arbitrary: fc.constantFrom("a".repeat(Math.max(minLength, 1)), "a".repeat(maxLength)).filter(withinLength(schema)) },
    );
  }
  // The document's example (e.g. an IANA time zone) gets requests past validation into the handler.
  for (const sample of [schema.example, schema.default]) {
    if (typeof sample === "string") choices.push({ weight: 6, arbitrary: fc.constant(sample) });
  }
  return fc.oneof(...choices);
}

function validNumber(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 1e-9) : -1_000_000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 1e-9) : 1_000_000);
  return integer
    ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** Values `schema` accepts (as far as its keywords say: business rules may still refuse them). */
export function validArbitrary(schema: JsonSchema, context: SchemaContext, depth = 0): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, context);
  if (resolved.const !== undefined) return fc.constant(resolved.const);
  if (resolved.enum) return fc.constantFrom(...resolved.enum);
  const branches = resolved.anyOf ?? resolved.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => validArbitrary(b, context, depth + 1)));
  return fc.oneof(...typesOf(resolved).map((type) => validOfType(type, resolved, context, depth)));
}

function validOfType(type: string, schema: JsonSchema, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return validNumber(schema, true);
    case "number":
      return validNumber(schema, false);
    case "string":
      return validString(schema, context);
    case "array": {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, 4));
      return fc.array(validArbitrary(schema.items ?? {}, context, depth + 1), { minLength, maxLength });
    }
    case "object": {
      if (depth > 8) return fc.constant({});
      const properties = schema.properties ?? {};
      const required = (schema.required ?? []).filter((k) => k in properties);
      const model = (keys: string[]) =>
        Object.fromEntries(keys.map((k) => [k, withKnownValues(k, validArbitrary(properties[k]!, context, depth + 1), context)]));
      // Often only the required properties: every optional one is another chance to be refused,
      // and a request refused at validation never reaches the handler or the database.
      const optional = Object.keys(properties).filter((k) => !required.includes(k));
      const minimal = required.length > 0 || optional.length === 0
        ? fc.record(model(required))
        : fc.constantFrom(...optional).chain((key) => fc.record(model([key])));
      return fc.oneof(
        { weight: 1, arbitrary: minimal },
        { weight: 2, arbitrary: fc.record(model(Object.keys(properties)), { requiredKeys: required }) },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------

/** A value with the reason it should be refused (or at least not break anything). */
export interface Hostile {
  value: unknown;
  why: string;
}

const SAMPLES_OF_EVERY_TYPE: unknown[] = [null, true, false, 0, -1, 1.5, "", "text", "1", "true", "null", [], [1, "a"], {}, { a: 1 }];

/** Strings that have broken parsers, databases and loggers before. */
const ODD_STRINGS: string[] = [
  "\u0000", "a\u0000b", "%00", "\\u0000", "\ud800", "\udfff", "a\ud83db", "\ufeff", "\uffff", "\ufffe",
  "\u202e\u202d", "e\u0301\u0301\u0301", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "😀👩‍👩‍👧‍👦", "\r\n\t\u000b\u000c", "\u0085\u2028\u2029",
  "' or 1=1 --", "\"; drop table core.users; --", "\\", "%", "_", "%_\\", "${jndi:ldap://x}", "{{7*7}}",
  "__proto__", "constructor", "<script>alert(1)</script>", "../../etc/passwd", " ", "İı", "ß", "ﬁ", "Ⅻ", "١٢٣", "０１２",
];

export const oddStringArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ODD_STRINGS),
  fc.string({ unit: "binary", maxLength: 40 }),
  // A lone surrogate inside otherwise ordinary text.
  fc.tuple(fc.string({ maxLength: 8 }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 8 }))
    .map(([a, surrogate, b]) => `${a}${String.fromCharCode(surrogate)}${b}`),
);

/** Strings of 10 KB to 100 KB (and one past the default body limit is made at request level). */
export const hugeStringArbitrary: fc.Arbitrary<string> = fc
  .tuple(fc.oneof(fc.constantFrom("a", "é", "😀", "\u0000", "%", "ab-"), fc.string({ minLength: 1, maxLength: 6 })), fc.integer({ min: 10_000, max: 100_000 }))
  .map(([unit, length]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

const outOfBoundsCache = new WeakMap<JsonSchema, Hostile[]>();

/** Values just outside the schema's bounds, or not of its enum or pattern. */
function outOfBounds(schema: JsonSchema, context: SchemaContext): Hostile[] {
  const cached = outOfBoundsCache.get(schema);
  if (cached) return cached;
  const values: Hostile[] = [];
  outOfBoundsCache.set(schema, values);
  const add = (value: unknown, why: string) => values.push({ value, why });
  if (schema.minLength !== undefined && schema.minLength > 0) add("a".repeat(schema.minLength - 1), `shorter than minLength ${schema.minLength}`);
  if (schema.maxLength !== undefined) {
    add("a".repeat(schema.maxLength + 1), `longer than maxLength ${schema.maxLength}`);
    add("😀".repeat(schema.maxLength), `${schema.maxLength} emoji (UTF-16 length twice the limit)`);
    add("e\u0301".repeat(Math.ceil(schema.maxLength / 2)), "combining marks up to maxLength code units");
  }
  if (schema.minimum !== undefined) add(schema.minimum - 1, `below minimum ${schema.minimum}`);
  if (schema.maximum !== undefined) add(schema.maximum + 1, `above maximum ${schema.maximum}`);
  if (schema.minimum !== undefined) add(schema.minimum - 0.001, `just below minimum ${schema.minimum}`);
  if (schema.maximum !== undefined) add(schema.maximum + 0.5, `just above maximum ${schema.maximum}`);
  if (schema.exclusiveMinimum !== undefined) add(schema.exclusiveMinimum, `equal to exclusiveMinimum ${schema.exclusiveMinimum}`);
  if (schema.minItems !== undefined && schema.minItems > 0) add([], `fewer than minItems ${schema.minItems}`);
  if (schema.maxItems !== undefined) {
    const item = schema.items ? fc.sample(validArbitrary(schema.items, context), { numRuns: 1, seed: 1 })[0] : 1;
    add(Array.from({ length: schema.maxItems + 1 }, () => item), `more than maxItems ${schema.maxItems}`);
  }
  if (schema.enum) {
    for (const member of schema.enum.filter((m): m is string => typeof m === "string")) {
      add(member.toUpperCase() === member ? member.toLowerCase() : member.toUpperCase(), "enum member in the other case");
      add(`${member} `, "enum member with a trailing space");
      add(`${member}\u0000`, "enum member with a NUL");
    }
    add("", "empty string for an enum");
  }
  if (schema.pattern) {
    const example = typeof schema.example === "string" ? schema.example : "65f1c0a2b3d4e5f601234567";
    add(example.toUpperCase(), "upper-cased example for a pattern");
    add(`${example}\n`, "example with a trailing newline");
    add(`${example}\u0000`, "example with a NUL");
    add(example.slice(1), "example one character short");
  }
  const types = typesOf(schema);
  if (types.includes("integer") || types.includes("number")) {
    for (const n of [2 ** 53, -(2 ** 53), 1e21, 1e308, -1e308, Number.MIN_VALUE, 0.5, -0]) add(n, `extreme number ${n}`);
  }
  if (types.includes("object") && (schema.required?.length ?? 0) > 0) add({}, "object without its required properties");
  return values;
}

/** Hostile values for a place described by `schema`. */
export function hostileArbitrary(schema: JsonSchema, context: SchemaContext): fc.Arbitrary<Hostile> {
  const resolved = resolve(schema, context);
  const types = typesOf(resolved);
  const wrongTypes = SAMPLES_OF_EVERY_TYPE.filter((v) => !admits(types, v) && !resolved.anyOf && !resolved.oneOf);
  const bounds = [resolved, ...(resolved.anyOf ?? resolved.oneOf ?? []).map((b) => resolve(b, context))].flatMap((s) => outOfBounds(s, context));
  const choices: Array<fc.WeightedArbitrary<Hostile>> = [
    { weight: 2, arbitrary: oddStringArbitrary.map((value) => ({ value, why: "odd string" })) },
    { weight: 1, arbitrary: hugeStringArbitrary.map((value) => ({ value, why: `huge string (${value.length} characters)` })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => ({ value, why: "random JSON value" })) },
  ];
  if (wrongTypes.length > 0) {
    choices.push({ weight: 3, arbitrary: fc.constantFrom(...wrongTypes).map((value) => ({ value, why: `wrong type ${jsonTypeOf(value)}` })) });
  }
  if (bounds.length > 0) choices.push({ weight: 3, arbitrary: fc.constantFrom(...bounds) });
  if (types.includes("string")) {
    // A valid value with an odd character inside: past most validation, into the handler and the database.
    choices.push({
      weight: 3,
      arbitrary: fc.tuple(validString(resolved, context), fc.constantFrom("\u0000", "\ud800", "\udc00", "\u202e", "\ufeff", "\n", "%", "'"), fc.nat())
        .map(([valid, odd, at]) => {
          const position = valid.length === 0 ? 0 : at % (valid.length + 1);
          return { value: valid.slice(0, position) + odd + valid.slice(position), why: `valid string with ${JSON.stringify(odd)} inside` };
        }),
    });
  }
  return fc.oneof(...choices);
}

// ---------------------------------------------------------------------------------------------
// Places in a value
// ---------------------------------------------------------------------------------------------

/** A place in a JSON value (a path of keys and indexes) and the schema that describes it. */
export interface Slot {
  path: Array<string | number>;
  schema: JsonSchema;
  value: unknown;
}

/** Every place in `value` that `schema` describes, the root included. */
export function slotsOf(value: unknown, schema: JsonSchema, context: SchemaContext, path: Array<string | number> = []): Slot[] {
  const resolved = branchFor(value, schema, context);
  const slots: Slot[] = [{ path, schema: resolved, value }];
  if (Array.isArray(value) && resolved.items) {
    value.forEach((item, i) => slots.push(...slotsOf(item, resolved.items!, context, [...path, i])));
  } else if (value !== null && typeof value === "object" && resolved.properties) {
    for (const [key, child] of Object.entries(value)) {
      const childSchema = resolved.properties[key];
      if (childSchema) slots.push(...slotsOf(child, childSchema, context, [...path, key]));
    }
  }
  return slots;
}

/** A copy of `root` with the value at `path` replaced (or deleted when `replacement` is `DELETE`). */
export const DELETE = Symbol("delete");
export function replaceAt(root: unknown, path: Array<string | number>, replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    if (rest.length === 0 && replacement === DELETE) copy.splice(head as number, 1);
    else copy[head as number] = replaceAt(copy[head as number], rest, replacement);
    return copy;
  }
  const copy = { ...(root as Record<string, unknown>) };
  if (rest.length === 0 && replacement === DELETE) delete copy[head as string];
  else copy[head as string] = replaceAt(copy[head as string], rest, replacement);
  return copy;
}

export const describePath = (path: Array<string | number>) => (path.length === 0 ? "body" : `body.${path.join(".")}`);
