// Defaults of request fields, written so that generated clients let them be omitted.
//
// openapi-typescript (7, default options: `defaultNonNullable`) types a property that has a
// `default` as always present, unless the schema sits inline under a requestBody or a parameter:
// right for answers, which carry every defaulted field, wrong for the request bodies, which are
// components here (`$ref`) and whose defaulted fields the client may omit. So in a schema that a
// request body reaches, an optional field's default moves into its description ("Default: …").
// A schema that answers reach too keeps its `default` (its generated answer type stays exact) and
// request bodies get a copy of it named `<Name>Input`.
type Json = Record<string, any>;

const SCHEMA_REF = "#/components/schemas/";
/** Keywords whose values are data (sample or allowed values), never schemas. */
const DATA_KEYWORDS = new Set(["example", "examples", "default", "enum", "const"]);

/** Names of the component schemas `node` reaches through references (added to `into`). */
export function schemasReachedBy(node: unknown, schemas: Json, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) schemasReachedBy(item, schemas, into);
  } else if (node && typeof node === "object") {
    const ref = (node as Json).$ref;
    if (typeof ref === "string" && ref.startsWith(SCHEMA_REF)) {
      const name = ref.slice(SCHEMA_REF.length);
      if (!into.has(name)) {
        into.add(name);
        schemasReachedBy(schemas[name], schemas, into);
      }
    }
    for (const value of Object.values(node)) schemasReachedBy(value, schemas, into);
  }
  return into;
}

/** Whether `node` has an object property with a `default` that the object does not require. */
function hasOptionalDefault(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasOptionalDefault);
  if (!node || typeof node !== "object") return false;
  const { properties, required = [] } = node as Json;
  if (properties && Object.entries<Json>(properties).some(([name, property]) => property && "default" in property && !required.includes(name))) {
    return true;
  }
  return Object.entries(node).some(([key, value]) => !DATA_KEYWORDS.has(key) && hasOptionalDefault(value));
}

/**
 * A copy of `node` with each optional property's default in its description, and each reference to a
 * schema of `renamed` pointing at its new name.
 */
function asRequestSchema(node: unknown, renamed: Map<string, string>): unknown {
  if (Array.isArray(node)) return node.map((item) => asRequestSchema(item, renamed));
  if (!node || typeof node !== "object") return node;
  const copy: Json = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, DATA_KEYWORDS.has(key) ? value : asRequestSchema(value, renamed)]));
  if (typeof copy.$ref === "string" && copy.$ref.startsWith(SCHEMA_REF)) {
    const target = renamed.get(copy.$ref.slice(SCHEMA_REF.length));
    if (target) copy.$ref = SCHEMA_REF + target;
  }
  if (copy.properties && typeof copy.properties === "object") {
    const required: string[] = copy.required ?? [];
    for (const [name, property] of Object.entries<Json>(copy.properties)) {
      if (!property || !("default" in property) || required.includes(name)) continue;
      const { default: value, ...rest } = property;
      const description = String(rest.description ?? "");
      const sentence = !description ? "" : /[.!?]\)?$/.test(description) ? `${description} ` : `${description}. `;
      copy.properties[name] = { ...rest, description: `${sentence}Default: \`${JSON.stringify(value)}\`.` };
    }
  }
  return copy;
}

/** The document with its request bodies' defaults written as described above; `document` is changed in place. */
export function withOptionalRequestDefaults<T extends { paths?: Json; components?: Json }>(document: T): T {
  const schemas: Json = document.components?.schemas ?? {};
  const requestBodies: Json[] = [];
  const elsewhere: Json = { ...document, paths: {}, components: { ...document.components, schemas: {} } };
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    elsewhere.paths[path] = {};
    for (const [method, operation] of Object.entries<Json>(item ?? {})) {
      if (!operation || typeof operation !== "object" || Array.isArray(operation)) {
        elsewhere.paths[path][method] = operation;
        continue;
      }
      const { requestBody, ...rest } = operation;
      if (requestBody) requestBodies.push(requestBody);
      elsewhere.paths[path][method] = rest;
    }
  }
  const reachedByRequests = schemasReachedBy(requestBodies, schemas);
  const reachedElsewhere = schemasReachedBy(elsewhere, schemas);
  // A schema changes if it, or a schema it reaches, has an optional default.
  const changed = [...reachedByRequests].filter((name) =>
    [...schemasReachedBy(schemas[name], schemas, new Set([name]))].some((reached) => hasOptionalDefault(schemas[reached])));
  const renamed = new Map(changed.map((name) => [name, reachedElsewhere.has(name) ? `${name}Input` : name]));
  for (const [name, target] of renamed) {
    if (target !== name && schemas[target]) throw new Error(`the request copy of ${name} would replace the schema ${target}`);
  }
  const requestSchemas = new Map(changed.map((name) => [renamed.get(name)!, asRequestSchema(schemas[name], renamed)]));
  for (const [name, schema] of requestSchemas) schemas[name] = schema;
  for (const item of Object.values<Json>(document.paths ?? {})) {
    for (const operation of Object.values<Json>(item ?? {})) {
      if (operation?.requestBody) operation.requestBody = asRequestSchema(operation.requestBody, renamed);
    }
  }
  return document;
}
