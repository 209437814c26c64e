import { writeFileSync } from "node:fs";
import { it } from "vitest";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { createTestContext } from "../../tests/setup/test-context.ts";
it("dump", async () => {
  const t = await createTestContext({ LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey() });
  writeFileSync("/tmp/spec/openapi.json", await (await t.call("/api/v3/openapi")).text());
  const a = await t.call("/auth/v1/openapi.json"); writeFileSync("/tmp/spec/auth.json", `${a.status} ` + await a.text());
  await t.close();
}, 60000);
