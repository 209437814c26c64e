import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { validate } from "@readme/openapi-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCALAR_VERSION, scalarScriptUrl } from "../../supabase/functions/api/docs/handlers.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const operations = (doc: any) =>
  Object.entries<any>(doc.paths).flatMap(([path, item]) =>
    Object.entries<any>(item).map(([method, op]) => ({ path, method, op })));

describe("API documentation", () => {
  it("serves one valid OpenAPI 3.1 document at both published paths", async () => {
    const a = await (await t.call("/api/v3/openapi")).json();
    const b = await (await t.call("/api/v3/docs/openapi.json")).json();
    expect(a).toEqual(b);
    expect(a.openapi).toBe("3.1.0");
    const result = await validate(structuredClone(a));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it("documents the x-api-key scheme on every authenticated operation, with the error body", async () => {
    const doc = await (await t.call("/api/v3/openapi")).json();
    expect(doc.components.securitySchemes.ApiKeyAuth).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
    const authenticated = operations(doc).filter(({ path }) => path.startsWith("/api/v3/") || path.startsWith("/api/auth/"));
    // The hosted checkout reads its session with the client secret, never an API key (SPEC 5.6), and
    // a wrong secret answers like an unknown id: 404, not 401.
    const bySecret = (op: { security?: unknown }) => JSON.stringify(op.security) === JSON.stringify([{ CheckoutClientSecret: [] }]);
    expect(authenticated.length).toBeGreaterThan(0);
    for (const { path, method, op } of authenticated) {
      if (bySecret(op)) {
        expect(op.responses["401"], `${method} ${path}`).toBeUndefined();
        expect(op.responses["404"]?.content["application/json"].schema.$ref, `${method} ${path}`).toBe("#/components/schemas/Error");
        continue;
      }
      // SPEC 5.8: the sponsorship owner's routes also take the app session, and so do the gasless
      // relays, reservations and the door, which the check-in app calls; the provider's verifier its own secret.
      const checkIn = /^\/api\/v3\/(events\/\{eventId\}\/(check-in|check-ins|reservations|staff|bracelets|access)|me\/reservations|check-in\/)/;
      const takesSession = path.startsWith("/api/v3/sponsorship/") || /\/(venue-)?gasless(\/|$)/.test(path) || checkIn.test(path);
      const allowed = path === "/api/v3/sponsorship/provider/verify"
        ? [[{ ProviderVerifierSecret: [] }]]
        : [[{ ApiKeyAuth: [] }], ...(takesSession ? [[{ ApiKeyAuth: [] }, { SessionAuth: [] }]] : [])];
      expect(allowed, `${method} ${path}`).toContainEqual(op.security);
      expect(op.responses["401"]?.content["application/json"].schema.$ref, `${method} ${path}`).toBe("#/components/schemas/Error");
    }
    expect(authenticated.filter(({ op }) => bySecret(op)).map(({ method, path }) => `${method} ${path}`))
      .toEqual([
        "get /api/v3/checkout/sessions/{checkoutId}",
        "post /api/v3/checkout/sessions/{checkoutId}/payments",
        "post /api/v3/checkout/sessions/{checkoutId}/payments/{attemptId}/transaction",
        "post /api/v3/checkout/sessions/{checkoutId}/confirm",
      ]);
    expect(doc.components.securitySchemes.CheckoutClientSecret).toMatchObject({ type: "apiKey", in: "header", name: "X-Checkout-Client-Secret" });
    expect(doc.components.securitySchemes.SessionAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.ProviderVerifierSecret).toMatchObject({ type: "apiKey", in: "header", name: "x-service-provider-verifier-secret" });
    expect(doc.components.schemas.Error.required).toEqual(expect.arrayContaining(["error", "message", "code", "timestamp", "request_id"]));
  });

  it("names its license and contact, declares a described tag per resource and tags every operation with one", async () => {
    const doc = await (await t.call("/api/v3/openapi")).json();
    expect(doc.info.license.name).toBeTruthy();
    expect(doc.info.contact.url).toBeTruthy();
    const declared = new Map<string, string>(doc.tags.map((tag: { name: string; description: string }) => [tag.name, tag.description]));
    expect(declared.size).toBe(doc.tags.length);
    for (const [name, description] of declared) expect(description, name).toBeTruthy();
    for (const { path, method, op } of operations(doc)) {
      expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const tag of op.tags) expect([...declared.keys()], `${method} ${path}`).toContain(tag);
    }
  });

  it("declares security on every operation, `security: []` on the ones that take no credential", async () => {
    const doc = await (await t.call("/api/v3/openapi")).json();
    const undeclared = operations(doc).filter(({ op }) => !Array.isArray(op.security ?? doc.security)).map(({ method, path }) => `${method} ${path}`);
    expect(undeclared).toEqual([]);
    expect(doc.paths["/health"].get.security).toEqual([]);
    expect(doc.paths["/ready"].get.security).toEqual([]);
  });

  it("generates /llms.txt from the same description", async () => {
    const doc = await (await t.call("/api/v3/openapi")).json();
    const response = await t.call("/llms.txt");
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const { path, method } of operations(doc)) expect(text).toContain(`### ${method.toUpperCase()} ${path}`);
    for (const name of Object.keys(doc.webhooks)) expect(text).toContain(`### WEBHOOK ${name}`);
    expect(Object.keys(doc.webhooks)).toEqual(["checkout.completed"]);
    expect(text).toContain("x-api-key");
    expect(text).toMatch(/## Errors[\s\S]*request_id/);
    expect(text).toContain("## Limits");
    expect(await (await t.call("/api/llms.txt")).text()).toBe(text);
  });

  it("serves the interactive reference pointing at the OpenAPI document and at Scalar's bundle served here", async () => {
    const response = await t.call("/api/v3/docs");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/html");
    const html = await response.text();
    expect(html).toContain("/api/v3/openapi");
    expect(html).toContain(`<script src="${t.config.PUBLIC_API_ROOT}/api/v3/docs/scalar.js?v=${SCALAR_VERSION}"`);
    expect(html).not.toContain("cdn.jsdelivr.net");
  });

  it("serves Scalar's browser bundle from node_modules, the version package.json pins", async () => {
    const packageDir = join(dirname(createRequire(import.meta.url).resolve("@scalar/api-reference")), "..");
    const installed = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version;
    const pinned = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).dependencies["@scalar/api-reference"];
    expect([SCALAR_VERSION, installed]).toEqual([pinned, pinned]);

    const response = await t.call(`/api/v3/docs/scalar.js?v=${SCALAR_VERSION}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.equals(readFileSync(join(packageDir, "dist", "browser", "standalone.js")))).toBe(true);
  });

  it("falls back to the CDN, same version, where the bundle is not installed", () => {
    expect(scalarScriptUrl("https://x.supabase.co/functions/v1", null))
      .toBe(`https://cdn.jsdelivr.net/npm/@scalar/api-reference@${SCALAR_VERSION}/dist/browser/standalone.js`);
    expect(scalarScriptUrl("https://x.supabase.co/functions/v1/", new Uint8Array(1)))
      .toBe(`https://x.supabase.co/functions/v1/api/v3/docs/scalar.js?v=${SCALAR_VERSION}`);
  });
});
