// The error statuses each operation documents, by what the route carries: a permission it checks
// (403), a resource its path names (404), a credential (401), a method with a body (413, 415), and
// the request limits every route enforces (400 over 100 query parameters, 414, 431). Whether the operations answer only what they document is the fuzz suite's last check
// (tests/fuzz/fuzz-suite.ts), over real answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpoints } from "../../supabase/functions/api/registry.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
// deno-lint-ignore no-explicit-any
let document: any;
beforeAll(async () => {
  t = await createTestContext();
  document = await (await t.call("/api/v3/openapi")).json();
});
afterAll(() => t.close());

// deno-lint-ignore no-explicit-any
const operations = () => Object.entries<any>(document.paths).flatMap(([path, item]) =>
  Object.entries<any>(item).filter(([method]) => ["get", "post", "put", "patch", "delete"].includes(method))
    .map(([method, operation]) => ({ where: `${method} ${path}`, method, operation })));

/** `where` of each operation that documents none of `status`, among those `applies` selects. */
function lacking(status: string, applies: (o: ReturnType<typeof operations>[number]) => boolean): string[] {
  return operations().filter((o) => applies(o) && !o.operation.responses[status]).map((o) => o.where);
}

describe("every operation documents the errors it can answer", () => {
  it("403 where its operation requires a permission", () => {
    const withPermission = endpoints.filter(({ operation }) => operation.permission);
    expect(withPermission.length).toBeGreaterThan(2);
    for (const { route, operation } of withPermission) {
      const documented = document.paths[route.path][route.method];
      expect(documented.responses["403"]?.content["application/json"].schema.$ref, `${route.operationId} (${operation.permission})`)
        .toBe("#/components/schemas/Error");
    }
  });

  it("404 where its path names a resource", () => {
    const pathIds = (o: ReturnType<typeof operations>[number]) => (o.operation.parameters ?? []).some((p: { in: string }) => p.in === "path");
    expect(lacking("404", pathIds)).toEqual([]);
  });

  it("401 where it takes a credential; 413 and 415 where the method carries a body; the request limits (400, 414, 431) everywhere", () => {
    // The checkout's client secret answers a wrong one like an unknown id (404), never 401.
    const credential = (o: ReturnType<typeof operations>[number]) =>
      (o.operation.security ?? []).some((requirement: object) => Object.keys(requirement).some((scheme) => scheme !== "CheckoutClientSecret"));
    expect(lacking("401", credential)).toEqual([]);
    expect(lacking("413", (o) => o.method !== "get")).toEqual([]);
    expect(lacking("415", (o) => o.method !== "get")).toEqual([]);
    expect(lacking("400", () => true)).toEqual([]);
    expect(lacking("414", () => true)).toEqual([]);
    expect(lacking("431", () => true)).toEqual([]);
  });

  it("in the one error body", () => {
    const other = operations().flatMap(({ where, operation }) => Object.entries<any>(operation.responses)
      .filter(([status, response]) => Number(status) >= 400 && response.content && response.content["application/json"]?.schema.$ref !== "#/components/schemas/Error")
      .map(([status]) => `${where} ${status}`));
    expect(other).toEqual([]);
  });
});
