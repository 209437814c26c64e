// The local auth server is a development stand-in for Supabase Auth, not part of the integrator's API:
// its routes are in a document of their own, served only while it runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let on: TestContext;
let off: TestContext;
beforeAll(async () => {
  on = await createTestContext({ LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey() });
  off = await createTestContext();
});
afterAll(async () => {
  await on.close();
  await off.close();
});

const pathsOf = async (t: TestContext, url: string) => Object.keys((await (await t.call(url)).json()).paths);

describe("the local auth server's routes are in a document of their own", () => {
  it("the API's document has no /auth/v1 route nor its tag, the local auth server on or off", async () => {
    for (const t of [on, off]) {
      const document = await (await t.call("/api/v3/openapi")).json();
      expect(Object.keys(document.paths).filter((path) => path.startsWith("/auth/"))).toEqual([]);
      expect(document.tags.map((tag: { name: string }) => tag.name).filter((name: string) => /auth/i.test(name))).toEqual([]);
      expect(await (await t.call("/llms.txt")).text()).not.toContain("/auth/v1");
    }
  });

  it("/auth/v1/openapi.json holds every local auth route while the server runs", async () => {
    expect((await pathsOf(on, "/auth/v1/openapi.json")).sort()).toEqual([
      "/auth/v1/.well-known/jwks.json", "/auth/v1/logout", "/auth/v1/otp", "/auth/v1/token", "/auth/v1/user", "/auth/v1/verify",
    ]);
    const document = await (await on.call("/auth/v1/openapi.json")).json();
    expect(document.servers[0].url).toBe(on.config.PUBLIC_API_ROOT);
    expect(document.components.securitySchemes.SessionAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("is not served while the server is off", async () => {
    expect((await off.call("/auth/v1/openapi.json")).status).toBe(404);
  });
});
