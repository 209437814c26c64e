// The registry of operations (api/registry.ts) is the API: every operation of the served OpenAPI
// document has exactly one operation behind it and every registered operation is documented, and
// call_api offers exactly the document's API-key operations. (The app-backend functions the
// document also describes, /functions/v1/<name>, are edge functions of their own, not the API's.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationIdOf } from "../../supabase/functions/_shared/http/endpoint.ts";
import { endpoints } from "../../supabase/functions/api/registry.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { connectClient, inProcessFetch } from "./mcp-fixtures.ts";

const METHODS = ["get", "post", "put", "patch", "delete"];
let t: TestContext;
type DocumentedOperation = { operationId?: string; security?: Array<Record<string, unknown>> };
let document: { paths: Record<string, Record<string, DocumentedOperation>> };

beforeAll(async () => {
  t = await createTestContext();
  document = await (await t.call("/api/v3/openapi")).json();
});
afterAll(async () => t.close());

const operationsOf = (paths: typeof document.paths) =>
  Object.entries(paths).flatMap(([path, item]) => Object.entries(item).filter(([method]) => METHODS.includes(method)).map(([method, operation]) => ({ method, path, operation })));

const documented = (filter: (operation: DocumentedOperation) => boolean = () => true) =>
  operationsOf(document.paths).filter(({ path, operation }) => !path.startsWith("/functions/v1/") && filter(operation)).map(({ operation }) => operation.operationId);

describe("the operation registry", () => {
  it("gives every documented operation a unique camelCase operationId", () => {
    const operations = operationsOf(document.paths);
    const ids = operations.map(({ operation }) => operation.operationId);
    for (const { method, path, operation } of operations) expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z][a-zA-Z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("binds each OpenAPI operation id to exactly one operation, and documents every registered one", () => {
    const registered = endpoints.map((e) => operationIdOf(e.route));
    expect(new Set(registered).size).toBe(registered.length);
    expect([...registered].sort()).toEqual(documented().sort());
    for (const { operation } of endpoints) expect(typeof operation.run, operation.name).toBe("function");
  });

  it("lets call_api list exactly the document's API-key operations", async () => {
    const user = await t.userWithKey();
    const client = await connectClient("http://localhost/mcp/backend", { headers: { "x-api-key": user.key }, fetch: inProcessFetch(t.app) });
    const listed = await client.callTool({ name: "list_operations", arguments: {} });
    const ids = (listed.structuredContent as { items: Array<{ operationId: string }> }).items.map((o) => o.operationId);
    expect([...ids].sort()).toEqual(documented((o) => o.security?.some((s) => "ApiKeyAuth" in s) ?? false).sort());
    await client.close();
  });
});
