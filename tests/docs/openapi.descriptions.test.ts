// What the served documents say, as an integrator reads them: every operation and every path or
// header parameter described, and no reference to a file that a clone of the repository lacks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { SDK_SCRIPT_PATH } from "../../supabase/functions/api/checkout-page/routes.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext({ LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey() });
});
afterAll(() => t.close());

/** The OpenAPI documents the service serves with every optional surface on. */
const DOCUMENTS = ["/api/v3/openapi", "/auth/v1/openapi.json"];

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
// deno-lint-ignore no-explicit-any
type Json = any;

function operationsOf(document: Json): Array<{ where: string; operation: Json }> {
  const paths = Object.entries<Json>(document.paths ?? {}).map(([path, item]) => [path, item] as const);
  const webhooks = Object.entries<Json>(document.webhooks ?? {}).map(([name, item]) => [`webhook ${name}`, item] as const);
  return [...paths, ...webhooks].flatMap(([where, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ where: `${method} ${where}`, operation: item[method] })));
}

function parameterOf(document: Json, parameter: Json): Json {
  return parameter.$ref ? document.components.parameters[parameter.$ref.split("/").pop()] : parameter;
}

describe("the served OpenAPI documents describe what an integrator sends", () => {
  it.each(DOCUMENTS)("%s: every operation has a description", async (url) => {
    const document = await (await t.call(url)).json();
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.filter(({ operation }) => !operation.description?.trim()).map(({ where }) => where)).toEqual([]);
  });

  it.each(DOCUMENTS)("%s: every path and header parameter has a description", async (url) => {
    const document = await (await t.call(url)).json();
    const undescribed: string[] = [];
    let checked = 0;
    for (const { where, operation } of operationsOf(document)) {
      for (const parameter of (operation.parameters ?? []).map((p: Json) => parameterOf(document, p))) {
        if (parameter.in !== "path" && parameter.in !== "header") continue;
        checked++;
        if (!parameter.description?.trim()) undescribed.push(`${where}: ${parameter.in} ${parameter.name}`);
      }
    }
    if (url === "/api/v3/openapi") expect(checked).toBeGreaterThan(50);
    expect(undescribed).toEqual([]);
  });
});

describe("served text names no file outside the repository", () => {
  // SPEC.md and DESIGN.md sit beside the repository, not in it: a reader of the served text cannot open them.
  const OUTSIDE = /\bSPEC\b|SPEC\.md|DESIGN\.md|\.\.\/shared\//;

  it.each([...DOCUMENTS, "/llms.txt", "/api/v3/docs", SDK_SCRIPT_PATH])("%s", async (url) => {
    const response = await t.call(url);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text.match(new RegExp(`.{0,60}(${OUTSIDE.source}).{0,60}`, "g")) ?? []).toEqual([]);
  });
});
