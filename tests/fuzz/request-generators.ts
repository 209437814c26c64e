// Requests generated from the OpenAPI document: a valid request for an operation, then one
// mutation of it (body, query, path, content type, method or headers) and a choice of credentials.
// Nothing here knows a route: every operation of the document is handled the same way.
import fc from "fast-check";
import {
  DELETE,
  dateTimeArbitrary,
  describePath,
  hostileArbitrary,
  hugeStringArbitrary,
  jsonTypeOf,
  matching,
  oddStringArbitrary,
  replaceAt,
  resolve,
  slotsOf,
  validArbitrary,
  withKnownValues,
  type JsonSchema,
  type SchemaContext,
} from "./schema-arbitraries.ts";

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: JsonSchema;
}

export interface Operation {
  method: string;
  /** The path template, e.g. `/api/v3/events/{eventId}`. */
  path: string;
  parameters: Parameter[];
  body?: { required: boolean; contentType: string; schema: JsonSchema };
  /** Whether the app session is its only credential (an app-backend function), not the API key. */
  sessionOnly: boolean;
  /** The statuses its responses document ("200", "404", ...). */
  documentedStatuses: string[];
}

interface OpenApiDocument {
  paths: Record<string, Record<string, {
    parameters?: Array<Parameter | { $ref: string }>;
    requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
    security?: Array<Record<string, string[]>>;
    responses?: Record<string, unknown>;
  }>>;
  components?: { schemas?: Record<string, JsonSchema>; parameters?: Record<string, Parameter> };
}

const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/** Every operation (path and method) of the document. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => {
        const parameters = (operation.parameters ?? []).map((p) => {
          if (!("$ref" in p)) return p;
          const found = document.components?.parameters?.[p.$ref.replace(/^#\/components\/parameters\//, "")];
          if (!found) throw new Error(`unresolvable parameter ${p.$ref}`);
          return found;
        });
        const content = Object.entries(operation.requestBody?.content ?? {})[0];
        const body = content
          ? { required: operation.requestBody?.required ?? false, contentType: content[0], schema: content[1].schema ?? {} }
          : undefined;
        const sessionOnly = JSON.stringify(operation.security) === JSON.stringify([{ SessionAuth: [] }]);
        return { method: method.toUpperCase(), path, parameters, body, sessionOnly, documentedStatuses: Object.keys(operation.responses ?? {}) };
      }));
}

/** What the generators may use besides the schemas: real ids, real cursors, the users' keys and sessions. */
export interface FuzzContext extends SchemaContext {
  /** The key most requests use. */
  fuzzerKey: string;
  /** The fuzzer's app session tokens: a valid one, an expired one, and one signed with another key. */
  sessionTokens: { valid: string; expired: string; forged: string };
  /** A key that was revoked. */
  revokedKey: string;
  /** The sponsored-transaction provider's secret (sent with the key: other routes ignore it). */
  verifierSecret: string;
}

/** One request as it is sent; its `toString` is the reproduction printed on failure. */
export class FuzzRequest {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Array<[string, string]>,
    readonly body: string | Uint8Array | undefined,
    /** What the generator did to a valid request, in words. */
    readonly mutation: string,
  ) {}

  [fc.toStringMethod](): string {
    return this.toString();
  }

  toString(): string {
    const lines = [`${this.method} ${truncate(this.url, 600)}`, ...this.headers.map(([k, v]) => `${k}: ${truncate(v, 200)}`)];
    if (this.body !== undefined) {
      const text = typeof this.body === "string" ? JSON.stringify(truncate(this.body, 600)) : `<${this.body.length} bytes> ${hexExcerpt(this.body)}`;
      lines.push(`body (${typeof this.body === "string" ? `${this.body.length} UTF-16 units` : "bytes"}): ${text}`);
    }
    lines.push(`(mutation: ${this.mutation})`);
    return lines.join("\n  ");
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more]`;
}

const hexExcerpt = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 64)).toString("hex") + (bytes.length > 64 ? "…" : "");

// ---------------------------------------------------------------------------------------------
// A request under construction
// ---------------------------------------------------------------------------------------------

type Body =
  | { kind: "none" }
  | { kind: "json"; value: unknown }
  /** JSON text with `fragment` in place of the value at `path` (what JSON.stringify cannot write). */
  | { kind: "json-with-fragment"; value: unknown; path: Array<string | number>; fragment: string }
  | { kind: "raw"; data: string | Uint8Array };

interface Draft {
  method: string;
  /** Path parameter values, already percent-encoded (or deliberately not). */
  pathParams: Record<string, string>;
  /** `name=value` pairs, already percent-encoded (or deliberately not). */
  query: string[];
  body: Body;
  /** Request headers other than credentials; a null value leaves the header out. */
  headers: Record<string, string | null>;
  /** An odd way to write the whole path (see PATH_SPELLINGS). */
  pathSpelling?: keyof typeof PATH_SPELLINGS;
  mutation: string;
}

const PATH_SPELLINGS = {
  "trailing slash": (path: string) => `${path}/`,
  "doubled slashes": (path: string) => path.replace(/\//g, "//"),
  "upper case": (path: string) => path.toUpperCase(),
  "extra segment": (path: string) => `${path}/extra`,
  "encoded slashes": (path: string) => path.replace(/(?!^)\//g, "%2F"),
  "matrix parameter": (path: string) => `${path};jsessionid=1`,
  "dot segment": (path: string) => `${path}/.`,
};

/**
 * encodeURIComponent, except that a lone surrogate (which it refuses) becomes the three bytes a
 * lenient UTF-8 encoder would write for it: the server must cope with that invalid UTF-8.
 */
export function percentEncode(text: string): string {
  return text.replace(/[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]|[^\ud800-\udfff]+/g, (part) => {
    if (part.length !== 1 || part.charCodeAt(0) < 0xd800 || part.charCodeAt(0) > 0xdfff) return encodeURIComponent(part);
    const unit = part.charCodeAt(0);
    return [0xed, 0xa0 | ((unit >> 6) & 0x1f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("");
  });
}

const encodePair = (name: string, value: string) => `${percentEncode(name)}=${percentEncode(value)}`;

/** Query text of a value: repeated for arrays, JSON for objects. */
function queryTexts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(queryTexts);
  if (value !== null && typeof value === "object") return [JSON.stringify(value)];
  return [String(value)];
}

/** A value that is valid for a parameter: mostly a real one when we know some, otherwise from its schema. */
const parameterValue = (parameter: Parameter, context: FuzzContext) =>
  withKnownValues(parameter.name, validArbitrary(parameter.schema, context), context);

function validDraft(operation: Operation, context: FuzzContext): fc.Arbitrary<Draft> {
  const pathParameters = operation.parameters.filter((p) => p.in === "path");
  const queryParameters = operation.parameters.filter((p) => p.in === "query");
  const pathParams = fc.record(Object.fromEntries(pathParameters.map((p) => [
    p.name,
    parameterValue(p, context).map((v) => percentEncode(String(v))),
  ])));
  const query = fc.tuple(...queryParameters.map((p) => {
    const pairs = parameterValue(p, context).map((v) => queryTexts(v).map((text) => encodePair(p.name, text)));
    // Each optional parameter in one request of four: together they often conflict (cursor and page).
    return p.required ? pairs : fc.oneof({ weight: 3, arbitrary: fc.constant([] as string[]) }, { weight: 1, arbitrary: pairs });
  })).map((lists) => lists.flat());
  const body: fc.Arbitrary<Body> = operation.body
    ? validArbitrary(operation.body.schema, context).map((value) => ({ kind: "json" as const, value }))
    : fc.constant({ kind: "none" as const });
  return fc.record({ pathParams, query, body }).map(({ pathParams, query, body }) => ({
    method: operation.method,
    pathParams,
    query,
    body,
    headers: { "content-type": body.kind === "none" ? null : (operation.body?.contentType ?? "application/json") },
    mutation: "none (a valid request)",
  }));
}

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

/** One way to spoil a valid request; `weight` is how often it is chosen among those that apply. */
interface Mutation {
  weight: number;
  applies: (operation: Operation) => boolean;
  mutate: (draft: Draft, operation: Operation, context: FuzzContext) => fc.Arbitrary<Draft>;
}

const hasBody = (operation: Operation) => operation.body !== undefined;
const mayCarryBody = (method: string) => method !== "GET" && method !== "HEAD";
const always = () => true;

const jsonValueOf = (draft: Draft): unknown => (draft.body.kind === "json" ? draft.body.value : undefined);

/** A JSON text nested `depth` levels deep. */
const deeplyNested = fc.tuple(fc.constantFrom("[", "{\"a\":"), fc.integer({ min: 100, max: 100_000 }))
  .map(([open, depth]) => open.repeat(depth) + "1" + (open === "[" ? "]" : "}").repeat(depth));

const INVALID_JSON = [
  "{", "}", "[", "{\"name\":}", "{'name':'x'}", "{\"name\":\"x\",}", "NaN", "undefined", "{\"a\":1}{\"b\":2}",
  "\ufeff{}", "{\"a\":\"\\x00\"}", "{\"a\":\"\\ud800\"}", "nul", "tru", "01", "{\"a\":1e999999}", "\u0000", "//{}", "/*x*/{}",
];

/** JSON literals that JSON.stringify never writes (out of range, too precise, escaped NUL or surrogate). */
const ODD_JSON_LITERALS = ["1e400", "-1e400", "-0", "123456789012345678901234567890", "0.0000000000000000000000001", "1E+2", "\"\\u0000\"", "\"\\udfff\""];

const CONTENT_TYPES = [
  "text/plain", "application/json; charset=utf-16", "application/json; charset=latin1", "application/json; charset=\"utf-8\"",
  "APPLICATION/JSON", "application/json-patch+json", "application/vnd.api+json", "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=fuzz", "multipart/form-data", "application/json;", ";", "application/", "*/*", "application/octet-stream",
];

const CONTENT_ENCODINGS = ["gzip", "deflate", "br", "identity", "compress", "gzip, gzip", "x-unknown"];

/** Path parameter values that are not ids: traversal, broken percent-encoding, very long, unicode. */
const JUNK_PATH_SEGMENTS = [
  "..%2F..%2F..%2Fetc%2Fpasswd", "..%2f", "%2e%2e", "..", ".", "%2F", "%5C", "%ZZ", "%", "%E0%A4%A", "%C0%AF", "%00", "%ED%A0%80", "%FF%FE",
  "65F1C0A2B3D4E5F601234567", "65f1c0a2b3d4e5f60123456", "65f1c0a2b3d4e5f6012345678", "000000000000000000000000", "null", "undefined",
  "-1", "0", "%20", "%0A", "%3B", "'", "%22", "%C3%BC", encodeURIComponent("𝔘😀\u202e"), "x".repeat(10_000), "%41".repeat(3_000),
];

const ODD_QUERY_TEXTS = [
  "", " ", "abc", "1.5", "-1", "0", "1e2", "0x10", " 5", "5 ", "９", "99999999999999999999999", "NaN", "Infinity", "true", "null", "[]", "{}",
];

/** Cursors a client might invent: random base64, JSON of the wrong shape, the right shape with odd values. */
function cursorArbitrary(context: FuzzContext): fc.Arbitrary<string> {
  const base64url = (text: string) => Buffer.from(text, "utf8").toString("base64url");
  const idLike = fc.oneof(matching(/^[0-9a-f]{24}$/), fc.constantFrom("", "x", "65F1C0A2B3D4E5F601234567"), fc.integer());
  const timeLike = fc.oneof(
    fc.date({ min: new Date("0000-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }).map((d) => `${d.toISOString().slice(0, 23)}123Z`),
    fc.constantFrom("0000-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z", "2026-02-30T00:00:00.000000Z", "1", ""),
    dateTimeArbitrary,
  );
  const shaped = fc.record({
    s: fc.oneof(fc.constantFrom("createdAt", "updatedAt"), fc.string({ maxLength: 12 })),
    o: fc.oneof(fc.constantFrom("asc", "desc"), fc.string({ maxLength: 5 })),
    v: timeLike,
    i: idLike,
  }, { requiredKeys: [] });
  return fc.oneof(
    fc.base64String({ maxLength: 120 }),
    fc.uint8Array({ maxLength: 90 }).map((bytes) => Buffer.from(bytes).toString("base64url")),
    fc.jsonValue({ maxDepth: 2 }).map((value) => base64url(JSON.stringify(value) ?? "null")),
    shaped.map((payload) => base64url(JSON.stringify(payload))),
    oddStringArbitrary.map(base64url),
    fc.constantFrom(...(context.knownValues.cursor ?? ["e30"])).map((cursor) => `${String(cursor)}x`),
  );
}

/** A hostile text for a query parameter: odd numbers and strings, schema-derived bounds, bad cursors. */
function hostileQueryText(parameter: Parameter, context: FuzzContext): fc.Arbitrary<{ text: string; why: string }> {
  const choices: Array<fc.Arbitrary<{ text: string; why: string }>> = [
    fc.constantFrom(...ODD_QUERY_TEXTS).map((text) => ({ text, why: "odd text" })),
    hostileArbitrary(parameter.schema, context).map(({ value, why }) => ({ text: queryTexts(value).join(","), why })),
  ];
  if (parameter.name === "cursor") choices.push(cursorArbitrary(context).map((text) => ({ text, why: "invented cursor" })));
  return fc.oneof(...choices);
}

const MUTATIONS: Mutation[] = [
  // The valid request itself: most of the state changes and the deepest code paths.
  { weight: 12, applies: always, mutate: (draft) => fc.constant(draft) },

  // ---- body, guided by its schema ----
  {
    weight: 10,
    applies: hasBody,
    mutate: (draft, operation, context) => {
      const slots = slotsOf(jsonValueOf(draft), operation.body!.schema, context);
      return fc.constantFrom(...slots).chain((slot) => hostileArbitrary(slot.schema, context).map(({ value, why }) => ({
        ...draft,
        body: { kind: "json" as const, value: replaceAt(jsonValueOf(draft), slot.path, value) },
        mutation: `${describePath(slot.path)}: ${why}`,
      })));
    },
  },
  {
    weight: 3,
    applies: hasBody,
    mutate: (draft, operation, context) => {
      const value = jsonValueOf(draft);
      const removable = slotsOf(value, operation.body!.schema, context).flatMap((slot) =>
        slot.value !== null && typeof slot.value === "object" && !Array.isArray(slot.value)
          ? (resolve(slot.schema, context).required ?? []).filter((k) => k in (slot.value as object)).map((k) => [...slot.path, k])
          : []);
      if (removable.length === 0) return fc.constant({ ...draft, mutation: "none (nothing required to remove)" });
      return fc.constantFrom(...removable).map((path) => ({
        ...draft,
        body: { kind: "json" as const, value: replaceAt(value, path, DELETE) },
        mutation: `${describePath(path)}: required property removed`,
      }));
    },
  },
  {
    weight: 3,
    applies: hasBody,
    mutate: (draft, operation, context) => {
      const value = jsonValueOf(draft);
      const objects = slotsOf(value, operation.body!.schema, context).filter((s) => jsonTypeOf(s.value) === "object");
      if (objects.length === 0) return fc.constant({ ...draft, mutation: "none (no object to extend)" });
      const name = fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "id", "ownerId", "owner_id", "createdAt", "", "name "), fc.string({ maxLength: 12 }));
      return fc.tuple(fc.constantFrom(...objects), name, fc.jsonValue({ maxDepth: 2 })).map(([slot, key, extra]) => {
        const extended = { ...(slot.value as object) };
        // defineProperty: a plain assignment to `__proto__` would change the prototype instead.
        Object.defineProperty(extended, key, { value: extra, enumerable: true, configurable: true, writable: true });
        return { ...draft, body: { kind: "json" as const, value: replaceAt(value, slot.path, extended) }, mutation: `${describePath(slot.path)}: extra property ${JSON.stringify(key)}` };
      });
    },
  },
  {
    weight: 1,
    applies: hasBody,
    mutate: (draft) =>
      fc.integer({ min: 1_000, max: 40_000 }).map((count) => {
        const value = jsonValueOf(draft);
        const extra = Object.fromEntries(Array.from({ length: count }, (_, i) => [`extra${i}`, i]));
        return {
          ...draft,
          body: { kind: "json" as const, value: { ...(jsonTypeOf(value) === "object" ? (value as object) : {}), ...extra } },
          mutation: `body: ${count} extra properties`,
        };
      }),
  },
  {
    weight: 2,
    applies: hasBody,
    mutate: (draft, operation, context) => {
      const slots = slotsOf(jsonValueOf(draft), operation.body!.schema, context);
      return fc.tuple(fc.constantFrom(...slots), fc.oneof(deeplyNested, fc.constantFrom(...ODD_JSON_LITERALS))).map(([slot, fragment]) => ({
        ...draft,
        body: { kind: "json-with-fragment" as const, value: jsonValueOf(draft), path: slot.path, fragment },
        mutation: `${describePath(slot.path)}: JSON literal ${JSON.stringify(fragment.slice(0, 40))}${fragment.length > 40 ? `… (${fragment.length} characters)` : ""}`,
      }));
    },
  },
  {
    weight: 3,
    applies: (operation) => mayCarryBody(operation.method),
    mutate: (draft) =>
      fc.oneof(
        fc.constantFrom(...INVALID_JSON).map((data) => ({ data: data as string | Uint8Array, why: "invalid JSON" })),
        fc.constantFrom("", " ", "\n").map((data) => ({ data: data as string | Uint8Array, why: "empty body" })),
        fc.uint8Array({ minLength: 1, maxLength: 64 }).map((data) => ({ data: data as string | Uint8Array, why: "random bytes" })),
        fc.constant({ data: new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0x80, 0x22, 0x7d]) as string | Uint8Array, why: "invalid UTF-8 in a JSON string" }),
        fc.jsonValue({ maxDepth: 3 }).map((value) => ({ data: JSON.stringify(value) as string | Uint8Array, why: "random JSON" })),
        hugeStringArbitrary.map((s) => ({ data: JSON.stringify({ [s.slice(0, 20)]: s }) as string | Uint8Array, why: "huge JSON" })),
        fc.constant({ data: "x".repeat(1_100_000) as string | Uint8Array, why: "body over the 1 MiB limit" }),
      ).map(({ data, why }) => ({
        ...draft,
        body: { kind: "raw" as const, data },
        headers: { ...draft.headers, "content-type": draft.headers["content-type"] ?? "application/json" },
        mutation: `body: ${why}`,
      })),
  },

  // ---- content type and encoding ----
  {
    weight: 4,
    applies: (operation) => mayCarryBody(operation.method),
    mutate: (draft) =>
      fc.oneof(fc.constantFrom<string | null>(...CONTENT_TYPES), fc.constant(null)).map((contentType) => ({
        ...draft,
        body: draft.body.kind === "none" ? { kind: "json" as const, value: {} } : draft.body,
        headers: { ...draft.headers, "content-type": contentType },
        mutation: `content-type: ${contentType ?? "(none)"}`,
      })),
  },
  {
    weight: 2,
    applies: hasBody,
    mutate: (draft) =>
      fc.constantFrom("utf-16le", "utf-16be").map((encoding) => {
        const text = JSON.stringify(jsonValueOf(draft) ?? {});
        const bytes = encoding === "utf-16le" ? Buffer.from(text, "utf16le") : Buffer.from(text, "utf16le").swap16();
        return {
          ...draft,
          body: { kind: "raw" as const, data: new Uint8Array(bytes) },
          headers: { ...draft.headers, "content-type": `application/json; charset=${encoding === "utf-16le" ? "utf-16" : "utf-16be"}` },
          mutation: `body encoded as ${encoding}`,
        };
      }),
  },
  {
    weight: 2,
    applies: (operation) => mayCarryBody(operation.method),
    mutate: (draft) =>
      fc.constantFrom(...CONTENT_ENCODINGS).map((encoding) => ({
        ...draft,
        headers: { ...draft.headers, "content-encoding": encoding },
        mutation: `content-encoding: ${encoding} (body not encoded)`,
      })),
  },

  // ---- query ----
  {
    weight: 5,
    applies: (operation) => operation.parameters.some((p) => p.in === "query"),
    mutate: (draft, operation, context) => {
      const parameters = operation.parameters.filter((p) => p.in === "query");
      return fc.constantFrom(...parameters).chain((parameter) =>
        fc.tuple(hostileQueryText(parameter, context), fc.boolean()).map(([{ text, why }, keepOthers]) => ({
          ...draft,
          query: [...draft.query.filter((pair) => keepOthers || !pair.startsWith(`${percentEncode(parameter.name)}=`)), encodePair(parameter.name, text)],
          mutation: `query ${parameter.name}: ${why}${keepOthers ? " (alongside any valid one)" : ""}`,
        })));
    },
  },
  {
    weight: 3,
    applies: always,
    mutate: (draft, operation) => {
      const names = operation.parameters.filter((p) => p.in === "query").map((p) => p.name);
      const name = fc.oneof(
        fc.constantFrom("limit", "private", "offset", "take[]", "", "=", "__proto__", "constructor", ...names.map((n) => n.toUpperCase())),
        fc.string({ maxLength: 10 }),
      );
      return fc.tuple(name, fc.oneof(fc.constantFrom("10", "false", "true", "", "1"), fc.string({ maxLength: 10 }))).map(([key, value]) => ({
        ...draft,
        query: [...draft.query, encodePair(key, value)],
        mutation: `unknown query parameter ${JSON.stringify(key)}`,
      }));
    },
  },
  {
    weight: 2,
    applies: (operation) => operation.parameters.some((p) => p.in === "query"),
    mutate: (draft, operation, context) => {
      const parameters = operation.parameters.filter((p) => p.in === "query");
      return fc.constantFrom(...parameters).chain((parameter) =>
        fc.array(parameterValue(parameter, context), { minLength: 2, maxLength: 5 }).map((values) => ({
          ...draft,
          query: [...draft.query, ...values.flatMap(queryTexts).map((text) => encodePair(parameter.name, text))],
          mutation: `query ${parameter.name} repeated`,
        })));
    },
  },
  {
    weight: 1,
    applies: (operation) => operation.parameters.some((p) => p.in === "query" && p.required),
    mutate: (draft, operation) =>
      fc.constantFrom(...operation.parameters.filter((p) => p.in === "query" && p.required)).map((parameter) => ({
        ...draft,
        query: draft.query.filter((pair) => !pair.startsWith(`${percentEncode(parameter.name)}=`)),
        mutation: `required query ${parameter.name} left out`,
      })),
  },
  {
    weight: 2,
    applies: always,
    mutate: (draft, operation) => {
      const names = [...operation.parameters.filter((p) => p.in === "query").map((p) => p.name), "x"];
      const raw = fc.constantFrom("%ZZ", "%", "%E0%A4%A", "%C0%AF", "%00", "%ED%A0%80", "%FF", "a%2", "%%", "+", "&&", "=", "==", "%26%3D");
      return fc.tuple(fc.constantFrom(...names), raw, fc.boolean()).map(([name, text, asName]) => ({
        ...draft,
        query: [...draft.query, asName ? `${text}=1` : `${percentEncode(name)}=${text}`],
        mutation: `query with broken percent-encoding ${JSON.stringify(text)}${asName ? " as a name" : ` in ${name}`}`,
      }));
    },
  },
  {
    weight: 1,
    applies: always,
    mutate: (draft) =>
      fc.integer({ min: 200, max: 2_000 }).map((count) => ({
        ...draft,
        query: [...draft.query, ...Array.from({ length: count }, (_, i) => encodePair(`p${i}`, "1"))],
        mutation: `${count} query parameters`,
      })),
  },

  // ---- path ----
  {
    weight: 4,
    applies: (operation) => operation.parameters.some((p) => p.in === "path"),
    mutate: (draft, operation) => {
      const names = operation.parameters.filter((p) => p.in === "path").map((p) => p.name);
      const junk = fc.oneof(
        fc.constantFrom(...JUNK_PATH_SEGMENTS),
        oddStringArbitrary.map(percentEncode),
        matching(/^[0-9a-f]{24}$/),
      );
      return fc.tuple(fc.constantFrom(...names), junk).map(([name, value]) => ({
        ...draft,
        pathParams: { ...draft.pathParams, [name]: value },
        mutation: `path ${name}: ${JSON.stringify(value.slice(0, 40))}${value.length > 40 ? `… (${value.length} characters)` : ""}`,
      }));
    },
  },

  {
    weight: 1,
    applies: always,
    mutate: (draft) =>
      fc.constantFrom(...(Object.keys(PATH_SPELLINGS) as Array<keyof typeof PATH_SPELLINGS>))
        .map((spelling) => ({ ...draft, pathSpelling: spelling, mutation: `path spelled with ${spelling}` })),
  },

  // ---- method ----
  {
    weight: 2,
    applies: always,
    mutate: (draft) =>
      fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD", "PURGE").map((method) => ({
        ...draft,
        method,
        mutation: `method ${method} instead of ${draft.method}`,
      })),
  },

  {
    weight: 1,
    applies: always,
    mutate: (draft) =>
      fc.tuple(
        fc.constantFrom("https://app.example", "null", "*"),
        fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "PURGE"),
        fc.constantFrom("x-api-key", "content-type, x-api-key", "x-evil", ""),
      ).map(([origin, method, headers]) => ({
          ...draft,
          method: "OPTIONS",
          headers: { ...draft.headers, origin, "access-control-request-method": method, "access-control-request-headers": headers },
          mutation: `CORS preflight from ${origin} for ${method}`,
        })),
  },

  // ---- other headers ----
  {
    weight: 2,
    applies: always,
    mutate: (draft) =>
      fc.oneof(
        fc.constantFrom("x".repeat(256), "a b", "<id>", "ünicode", "", "valid-id_=").map((v) => ["x-request-id", v] as const),
        fc.constantFrom("-1", "abc", "0", "99999999999999999999").map((v) => ["content-length", v] as const),
        fc.constantFrom("text/html", "application/xml", "*/*;q=0", "").map((v) => ["accept", v] as const),
        fc.constantFrom("null", "https://evil.example", "*").map((v) => ["origin", v] as const),
      ).map(([name, value]) => ({
        ...draft,
        headers: { ...draft.headers, [name]: value },
        mutation: `header ${name}: ${JSON.stringify(value.slice(0, 40))}`,
      })),
  },
];

type Credentials = { headers: Array<[string, string]>; what: string };

const choice = (weight: number, what: string, headers: fc.Arbitrary<Array<[string, string]>>) =>
  ({ weight, arbitrary: headers.map((h): Credentials => ({ headers: h, what })) });

/** An app session's credentials (the app-backend functions'), mostly the fuzzer's valid token. */
function sessionCredentialsArbitrary(context: FuzzContext): fc.Arbitrary<Credentials> {
  const { valid, expired, forged } = context.sessionTokens;
  const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${valid.split(".")[1]}.`;
  return fc.oneof(
    choice(80, "the fuzzer's app session", fc.constant([["authorization", `Bearer ${valid}`]])),
    choice(3, "no credentials", fc.constant([])),
    choice(3, "expired, forged or unsigned session", fc.constantFrom(expired, forged, unsigned).map((t) => [["authorization", `Bearer ${t}`]])),
    choice(3, "malformed Authorization", fc.oneof(fc.string({ unit: "binary-ascii", maxLength: 80 }), fc.constantFrom("Bearer ", `Basic ${valid}`, `Bearer ${valid} x`, valid))
      .map((v) => [["authorization", v.replace(/[\u0000-\u001f\u007f]/g, "")]])),
    choice(3, "an API key instead", fc.constant([["x-api-key", context.fuzzerKey]])),
  );
}

/** Request headers carrying credentials, and what they are. */
function credentialsArbitrary(context: FuzzContext): fc.Arbitrary<Credentials> {
  const key = context.fuzzerKey;
  return fc.oneof(
    choice(80, "the fuzzer's key (and the provider's verifier secret)", fc.constant([["x-api-key", key], ["x-service-provider-verifier-secret", context.verifierSecret]])),
    choice(3, "no credentials", fc.constant([])),
    choice(3, "malformed key", fc.oneof(fc.string({ unit: "binary-ascii", maxLength: 80 }), fc.constantFrom(`${key} `, ` ${key}`, key.slice(0, -1), key.toUpperCase(), `${key},${key}`, "sk_", "")).map((k) => [["x-api-key", k.replace(/[\u0000-\u001f\u007f]/g, "")]])),
    choice(3, "well-formed unknown key", matching(/^sk_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/).map((k) => [["x-api-key", k]])),
    choice(2, "revoked key", fc.constant([["x-api-key", context.revokedKey]])),
    choice(3, "Authorization: Bearer instead of x-api-key", fc.constantFrom(`Bearer ${key}`, "Bearer ", "bearer x.y.z", `Basic ${Buffer.from(key).toString("base64")}`).map((v) => [["authorization", v]])),
    choice(2, "x-api-key and Authorization: Bearer", fc.constant([["x-api-key", key], ["authorization", "Bearer eyJhbGciOiJub25lIn0.e30."]])),
  );
}

/** Requests for `operation`: a valid one mutated once, with some choice of credentials. */
export function requestArbitrary(operation: Operation, context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const mutations = MUTATIONS.filter((m) => m.applies(operation));
  const mutated = validDraft(operation, context).chain((draft) =>
    fc.oneof(...mutations.map((m) => ({ weight: m.weight, arbitrary: m.mutate(draft, operation, context) }))));
  const credentials = operation.sessionOnly ? sessionCredentialsArbitrary(context) : credentialsArbitrary(context);
  return fc.tuple(mutated, credentials).map(([draft, credentials]) => toRequest(operation, draft, credentials));
}

function bodyData(body: Body): string | Uint8Array | undefined {
  switch (body.kind) {
    case "none":
      return undefined;
    case "json":
      return JSON.stringify(body.value) ?? "";
    case "json-with-fragment": {
      const placeholder = "\u0001fuzz-fragment\u0001";
      return JSON.stringify(replaceAt(body.value, body.path, placeholder)).replace(JSON.stringify(placeholder), () => body.fragment);
    }
    case "raw":
      return body.data;
  }
}

function toRequest(operation: Operation, draft: Draft, credentials: Credentials): FuzzRequest {
  const filled = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => draft.pathParams[name] ?? "");
  const path = draft.pathSpelling ? PATH_SPELLINGS[draft.pathSpelling](filled) : filled;
  const url = draft.query.length > 0 ? `${path}?${draft.query.join("&")}` : path;
  const headers: Array<[string, string]> = Object.entries(draft.headers).filter((e): e is [string, string] => e[1] !== null);
  // GET and HEAD requests cannot carry a body (the Request constructor refuses it).
  let body = mayCarryBody(draft.method) ? bodyData(draft.body) : undefined;
  const sentHeaders = body === undefined ? headers.filter(([name]) => name !== "content-type" && name !== "content-encoding") : headers;
  // A string body without a Content-Type would be sent as text/plain; bytes are sent without one.
  if (typeof body === "string" && !sentHeaders.some(([name]) => name === "content-type")) body = new TextEncoder().encode(body);
  return new FuzzRequest(draft.method, url, [...sentHeaders, ...credentials.headers], body, `${draft.mutation}; credentials: ${credentials.what}`);
}

// ---------------------------------------------------------------------------------------------
// Sending and checking
// ---------------------------------------------------------------------------------------------

export interface Outcome {
  status: number;
  /** False when something in front of the service answered (the platform, HTTP itself), not the operation. */
  reachedService?: boolean;
  problems: string[];
  bodyExcerpt: string;
}

const ERROR_BODY_KEYS = new Set(["error", "message", "code", "timestamp", "request_id", "details"]);

/** Sends `request` to the app in-process and checks the response against the rules every response follows. */
export async function sendAndCheck(app: { request: (url: string, init: RequestInit) => Response | Promise<Response> }, request: FuzzRequest): Promise<Outcome> {
  const response = await app.request(request.url, {
    method: request.method,
    headers: new Headers(request.headers),
    body: request.body as BodyInit | undefined,
  });
  return checkAnswer(request, { status: response.status, headers: response.headers, text: await response.text() });
}

/** An answer as received: status, headers and the body's text. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

/** What is wrong with `answer` to `request`: a server error, no x-request-id, an error that is not the one error body. */
export function checkAnswer(request: FuzzRequest, answer: Answer): Outcome {
  const { status, text } = answer;
  const problems: string[] = [];
  if (status >= 500) problems.push(`status ${status} (a server error)`);
  const requestId = answer.headers.get("x-request-id");
  if (!requestId) problems.push("no x-request-id header");
  // A HEAD response has no body by definition; its status and headers are still checked.
  if (status >= 400 && request.method !== "HEAD") problems.push(...errorBodyProblems(answer.headers, text, requestId));
  return { status, problems, bodyExcerpt: truncate(text, 500) };
}

function errorBodyProblems(headers: Headers, text: string, requestId: string | null): string[] {
  const contentType = headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(contentType)) return [`error with content-type ${JSON.stringify(contentType)}, not application/json`];
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    return ["error body is not JSON"];
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) return ["error body is not an object"];
  const problems: string[] = [];
  if (body.error !== true) problems.push("error body: `error` is not true");
  for (const field of ["message", "code", "timestamp", "request_id"]) {
    if (typeof body[field] !== "string") problems.push(`error body: \`${field}\` is not a string`);
  }
  if (typeof body.timestamp === "string" && Number.isNaN(Date.parse(body.timestamp))) problems.push("error body: `timestamp` is not a date");
  if (requestId && typeof body.request_id === "string" && body.request_id !== requestId) problems.push(`error body: request_id ${JSON.stringify(body.request_id)} differs from the x-request-id header ${requestId}`);
  const extra = Object.keys(body).filter((k) => !ERROR_BODY_KEYS.has(k));
  if (extra.length > 0) problems.push(`error body has unexpected fields ${extra.join(", ")}`);
  return problems;
}
