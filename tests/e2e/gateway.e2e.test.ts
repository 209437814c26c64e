// The real Deno gateway, started the way `npm start` starts it, called over HTTP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGatewayProcess, type GatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { SignJWT } from "jose";
import { createTestContext, expectErrorBody, TEST_JWT_SECRET, type TestContext, type UserWithKey } from "../setup/test-context.ts";

let t: TestContext;
let gateway: GatewayProcess;
let user: UserWithKey;

beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey();
  gateway = await startGatewayProcess({ DATABASE_URL: t.url, JWT_SECRET: TEST_JWT_SECRET });
});
afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await t.close();
});

describe("npm start's gateway over HTTP", () => {
  it("prints the API base and the docs URL", () => {
    expect(gateway.output()).toContain(`API base      ${gateway.url}/api/v3`);
    expect(gateway.output()).toContain(`Docs          ${gateway.url}/api/v3/docs`);
  });

  it("says which features are not configured and how to turn each on, the AI provider among them", () => {
    const banner = gateway.output();
    expect(banner).toContain("Not configured");
    const ai = banner.split("\n").find((line) => line.trimStart().startsWith("AI assistant"));
    expect(ai).toContain("503 provider_not_configured");
    expect(ai).toContain("ASSISTANT_API_KEY");
    expect(ai).toContain("ASSISTANT_BASE_URL");
    // This gateway was given no EVM_CHAINS and no SMTP_URL either.
    expect(banner).toMatch(/^ {2}EVM chains .*EVM_CHAINS/m);
    expect(banner).toMatch(/^ {2}Mail .*SMTP_URL/m);
  });

  it("gzips under Deno too: the OpenAPI document for a client that accepts gzip, plain for one that does not", async () => {
    const gzipped = await fetch(`${gateway.url}/api/v3/openapi`, { headers: { "accept-encoding": "gzip" } });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(gzipped.headers.get("vary")?.toLowerCase()).toContain("accept-encoding");
    expect((await gzipped.json()).openapi).toBe("3.1.0"); // fetch decodes it
    const plain = await fetch(`${gateway.url}/api/v3/openapi`, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect((await plain.json()).openapi).toBe("3.1.0");
  });

  it("serves REST v3 at /api/v3 and at the Supabase function path", async () => {
    for (const path of ["/api/v3/me", "/functions/v1/api/v3/me"]) {
      const response = await fetch(gateway.url + path, { headers: { "x-api-key": user.key } });
      expect(response.status, path).toBe(200);
      expect((await response.json()).id).toBe(user.id);
    }
  });

  it("serves the jobs function at its Supabase path, refusing calls without its secret", async () => {
    const response = await fetch(`${gateway.url}/functions/v1/jobs`, { method: "POST" });
    await expectErrorBody(response, 503, "jobs_not_configured");
  });

  it("serves each app-backend function at its Supabase path", async () => {
    const token = await new SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(user.authUserId)
      .setAudience("authenticated").setExpirationTime("5m").sign(new TextEncoder().encode(TEST_JWT_SECRET));
    const post = (name: string, body: unknown) => fetch(`${gateway.url}/functions/v1/${name}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    for (const name of ["chat-with-assistant", "transcribe-audio", "discover-mcp-capabilities", "rename-chat-for-event"]) {
      const preflight = await fetch(`${gateway.url}/functions/v1/${name}`, {
        method: "OPTIONS",
        headers: { origin: "https://app.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization, x-client-info, apikey, content-type" },
      });
      expect(preflight.status, name).toBe(204);
    }
    const discovered = await post("discover-mcp-capabilities", {});
    expect(discovered.status).toBe(200);
    expect((await discovered.json()).servers[0]).toMatchObject({ name: "eventhub-public", status: "ok" });
    await expectErrorBody(await post("rename-chat-for-event", { roomId: "room-1" }), 503, "provider_not_configured");
  });

  it("answers errors with the error body and a request id header", async () => {
    const response = await fetch(`${gateway.url}/api/v3/me`);
    const body = await expectErrorBody(response, 401, "missing_api_key");
    expect(response.headers.get("x-request-id")).toBe(body.request_id);
    await expectErrorBody(await fetch(`${gateway.url}/api/v2/hubs`), 410, "api_version_removed");
  });

  it("is ready and documented", async () => {
    expect((await fetch(`${gateway.url}/ready`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/api/v3/openapi`)).status).toBe(200);
    expect(await (await fetch(`${gateway.url}/llms.txt`)).text()).toContain("GET /api/v3/me");
  });
});

describe("stopping", () => {
  it("stops cleanly on Ctrl-C (SIGINT)", async () => {
    const second = await startGatewayProcess({ DATABASE_URL: t.url });
    expect((await fetch(`${second.url}/health`)).status).toBe(200);
    expect(await second.stop("SIGINT")).toBe(0);
    await expect(fetch(`${second.url}/health`)).rejects.toThrow();
  });
});
