// The README's supabase-js snippet (App-backend functions) as printed, run by the machine's Node (20,
// the Node the project needs) against npm start's gateway: supabase-js 2.109 throws at createClient
// on a Node without a WebSocket of its own unless the snippet hands it one. The global WebSocket is
// turned off (--no-experimental-websocket), so a newer Node runs it as Node 20 does.
import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { LOCAL_ANON_KEY } from "../../scripts/lib/local-services.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { type MailSink, startMailSink } from "../../scripts/lib/mail-sink.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { codeMailedTo, newAddress, supabaseClient } from "./local-auth-fixtures.ts";

/** The README's project URL, which the snippet prints; the test's gateway listens elsewhere. */
const README_PROJECT_URL = "http://127.0.0.1:54321";

/** The first ```ts block after `marker` in README.md, verbatim. */
async function readmeSnippet(marker: string): Promise<string> {
  const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
  const after = readme.slice(readme.indexOf(marker));
  const block = /```ts\n([\s\S]*?)```/.exec(after);
  if (readme.indexOf(marker) < 0 || !block) throw new Error(`README.md has no ts snippet after "${marker}"`);
  return block[1]!;
}

/** The machine's own node (npm's PATH puts node_modules/.bin first, whose `node` may be the node22 package). */
const systemPath = process.env.PATH!.split(delimiter).filter((dir) => !dir.includes("node_modules")).join(delimiter);

let t: TestContext;
let mail: MailSink;
let gateway: GatewayProcess;

beforeAll(async () => {
  t = await createTestContext();
  mail = await startMailSink();
  gateway = await startGatewayProcess({
    DATABASE_URL: t.url,
    SMTP_URL: mail.url,
    LOCAL_AUTH_ENABLED: "true",
    LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey(),
  });
});
afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await mail?.close();
  await t?.close();
});

describe("the README's supabase-js snippet", () => {
  it("runs as printed on a Node without WebSocket (Node 20) and calls an app function with the person's session", async () => {
    const supabase = supabaseClient({ url: gateway.url });
    const email = newAddress("readme");
    expect((await supabase.auth.signInWithOtp({ email })).error).toBeNull();
    const verified = await supabase.auth.verifyOtp({ email, token: await codeMailedTo(mail, email), type: "email" });
    expect(verified.error).toBeNull();

    const snippet = await readmeSnippet("With supabase-js, as the check-in app does");
    expect(snippet).toContain(README_PROJECT_URL);
    // The snippet's two free names, then its lines with only the project URL pointed at this gateway, then what it got.
    const program = [
      `const ANON_KEY = ${JSON.stringify(LOCAL_ANON_KEY)};`,
      "const sessionToken = process.env.SESSION_TOKEN;",
      snippet.replaceAll(README_PROJECT_URL, gateway.url),
      "console.log(JSON.stringify({ data, error: error && String(error) }));",
    ].join("\n");
    const dir = join(REPO_ROOT, ".local", "readme-snippets"); // inside the checkout, so its imports resolve
    await mkdir(dir, { recursive: true });
    const file = join(dir, `supabase-js-${process.pid}-${Date.now()}.mjs`);
    await writeFile(file, program);
    try {
      const { stdout } = await promisify(execFile)("node", ["--no-experimental-websocket", file], {
        env: { ...process.env, PATH: systemPath, SESSION_TOKEN: verified.data.session!.access_token },
        timeout: 20_000,
      }).catch((failure: { stderr?: string; message: string }) => {
        throw new Error(`the snippet failed:\n${failure.stderr ?? failure.message}`);
      });
      const result = JSON.parse(stdout.trim().split("\n").at(-1)!);
      expect(result.error).toBeNull();
      expect(result.data.servers).toEqual([expect.objectContaining({ source: "service", status: "ok" })]);
    } finally {
      await rm(file, { force: true });
    }
  });
});
