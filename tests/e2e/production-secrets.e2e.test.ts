// The real gateway in production mode: it refuses to start with the published development secrets
// (anyone could open its sealed secrets or forge its tokens), and starts with secrets of its own.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DEVELOPMENT_ENCRYPTION_KEY, DEVELOPMENT_TOKEN_SECRET } from "../../supabase/functions/_shared/config.ts";
import { startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { createTestContext, PRODUCTION_REQUIREMENTS, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => t.close());

const own = { SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"), MCP_TOKEN_SECRET: randomBytes(32).toString("base64url") };
const production = () => ({ DATABASE_URL: t.url, APP_ENV: "production", ...PRODUCTION_REQUIREMENTS, ...own });

it("refuses to start with a published development secret, and starts with its own", async () => {
  await expect(startGatewayProcess({ ...production(), SECRETS_ENCRYPTION_KEY: DEVELOPMENT_ENCRYPTION_KEY }))
    .rejects.toThrow(/SECRETS_ENCRYPTION_KEY: the published development value is refused in production/);
  await expect(startGatewayProcess({ ...production(), MCP_TOKEN_SECRET: DEVELOPMENT_TOKEN_SECRET }))
    .rejects.toThrow(/MCP_TOKEN_SECRET: the published development value is refused in production/);
  const gateway = await startGatewayProcess(production());
  try {
    expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
  } finally {
    await gateway.stop("SIGKILL");
  }
});
