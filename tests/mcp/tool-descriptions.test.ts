// What a model and an integrator read before their first call: every tool of both MCP endpoints has a
// description, and so does every property, at any depth, of every tool's input and output schema
// (tools/list through the SDK 1.x Client that most MCP hosts run); every query parameter and every
// property of a request, response or webhook body in the served OpenAPI documents (the API's and the
// local auth server's) has one too.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { MCP_SCOPES } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { createOAuthTestContext, issueTokens, type OAuthTestContext, RESOURCE, ROOT } from "./oauth-fixtures.ts";

type Schema = Record<string, unknown>;
const isSchema = (value: unknown): value is Schema => value !== null && typeof value === "object" && !Array.isArray(value);
const described = (schema: Schema) => typeof schema.description === "string" && schema.description.trim() !== "";

/**
 * The places under `root` (a JSON Schema, or an OpenAPI document's schema) where a property has no
 * description of its own, nor through the `$ref` it is or an `allOf` member (the OpenAPI generator
 * writes a described reference as `allOf: [{$ref}, {description}]`). Every subschema is walked: properties,
 * array items, additional properties and the branches of anyOf, oneOf and allOf; a `$ref` is
 * resolved in `document` (`#/...` pointers) and walked once.
 */
function undescribedProperties(root: Schema, where: string, document: Schema = root): string[] {
  const missing: string[] = [];
  const walkedRefs = new Set<string>();
  const resolve = (ref: string): Schema | undefined => {
    let node: unknown = document;
    for (const part of ref.replace(/^#\//, "").split("/")) node = isSchema(node) ? node[part.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    return isSchema(node) ? node : undefined;
  };
  const describedProperty = (schema: Schema): boolean => {
    if (described(schema)) return true;
    const target = typeof schema.$ref === "string" ? resolve(schema.$ref) : undefined;
    if (target !== undefined && described(target)) return true;
    return Array.isArray(schema.allOf) && schema.allOf.some((member) => isSchema(member) && describedProperty(member));
  };
  const walk = (schema: unknown, path: string): void => {
    if (!isSchema(schema)) return;
    if (typeof schema.$ref === "string") {
      if (walkedRefs.has(schema.$ref)) return;
      walkedRefs.add(schema.$ref);
      const target = resolve(schema.$ref);
      if (!target) missing.push(`${path} (unresolved ${schema.$ref})`);
      walk(target, schema.$ref);
    }
    if (isSchema(schema.properties)) {
      for (const [name, property] of Object.entries(schema.properties)) {
        if (!isSchema(property) || !describedProperty(property)) missing.push(`${path}.${name}`);
        walk(property, `${path}.${name}`);
      }
    }
    const items = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    items.forEach((item, i) => walk(item, `${path}[${i}]`));
    walk(schema.items, `${path}[]`);
    walk(schema.additionalProperties, `${path}{}`);
    for (const key of ["anyOf", "oneOf", "allOf"] as const) {
      const branches = schema[key];
      if (Array.isArray(branches)) branches.forEach((branch, i) => walk(branch, `${path}<${key} ${i}>`));
    }
  };
  walk(root, where);
  return missing;
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Schema;
  outputSchema?: Schema;
}

/** Each tool without a description, and each undescribed property of its schemas. */
function undescribedInTools(tools: ListedTool[]): string[] {
  return tools.flatMap((tool) => [
    ...(typeof tool.description === "string" && tool.description.trim() !== "" ? [] : [`${tool.name} (the tool)`]),
    ...undescribedProperties(tool.inputSchema, `${tool.name} input`),
    ...(tool.outputSchema ? undescribedProperties(tool.outputSchema, `${tool.name} output`) : [`${tool.name} (no output schema)`]),
  ]);
}

let ctx: OAuthTestContext;
let backend: Client;
let publicEndpoint: Client;

async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "tool-descriptions-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: ctx.fetch, requestInit: { headers } }));
  return client;
}

beforeAll(async () => {
  // With the local auth server on, so its document is served too.
  ctx = await createOAuthTestContext({ LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey() });
  const user = await ctx.userWithKey([]);
  backend = await connect(`${ROOT}/mcp/backend`, { "x-api-key": user.key });
  // Every scope, so tools/list shows every public tool.
  const tokens = await issueTokens(ctx, "descriptions@example.com", [...MCP_SCOPES]);
  publicEndpoint = await connect(RESOURCE, { authorization: `Bearer ${tokens.access_token}` });
});
afterAll(async () => {
  await backend?.close();
  await publicEndpoint?.close();
  await ctx?.close();
});

describe("MCP tools describe every parameter and output field", () => {
  it("the backend endpoint (/mcp/backend)", async () => {
    const { tools } = await backend.listTools();
    const size = Buffer.byteLength(JSON.stringify({ tools }));
    console.log(`backend tools/list: ${tools.length} tools, ${size} bytes`);
    expect(tools.length).toBeGreaterThan(0);
    expect(undescribedInTools(tools as ListedTool[])).toEqual([]);
  });

  it("the public endpoint (/mcp)", async () => {
    const { tools } = await publicEndpoint.listTools();
    expect(tools.map((tool) => tool.name)).toContain("check_in_by_reservation");
    expect(undescribedInTools(tools as ListedTool[])).toEqual([]);
  });
});

/** Each query parameter and each body property (requests, responses, webhooks) of `document` without a description. */
function undescribedInDocument(document: Schema): string[] {
  const missing: string[] = [];
  const operations = [
    ...Object.entries(document.paths as Record<string, Schema>),
    ...Object.entries((document.webhooks ?? {}) as Record<string, Schema>).map(([name, item]) => [`webhook ${name}`, item] as const),
  ].flatMap(([path, item]) =>
    Object.entries(item).filter(([method]) => ["get", "put", "post", "delete", "patch"].includes(method))
      .map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, operation: operation as Schema })));
  expect(operations.length).toBeGreaterThan(0);
  for (const { where, operation } of operations) {
    for (const parameter of (operation.parameters ?? []) as Schema[]) {
      if (parameter.in === "query" && !described(parameter) && !(isSchema(parameter.schema) && described(parameter.schema))) {
        missing.push(`${where} query ${parameter.name}`);
      }
    }
    const bodies = [
      ["request", (operation.requestBody as Schema | undefined)?.content],
      ...Object.entries((operation.responses ?? {}) as Record<string, Schema>).map(([status, response]) => [status, response.content] as const),
    ] as const;
    for (const [which, content] of bodies) {
      for (const [mediaType, media] of Object.entries((content ?? {}) as Record<string, Schema>)) {
        if (isSchema(media.schema)) missing.push(...undescribedProperties(media.schema, `${where} ${which} ${mediaType}`, document));
      }
    }
  }
  return [...new Set(missing)];
}

describe("the OpenAPI documents describe every query parameter and body property", () => {
  it.each(["/api/v3/openapi", "/auth/v1/openapi.json"])("GET %s", async (path) => {
    const response = await ctx.call(path);
    expect(response.status).toBe(200);
    expect(undescribedInDocument((await response.json()) as Schema)).toEqual([]);
  });
});
