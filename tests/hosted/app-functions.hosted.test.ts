// The app-backend functions served as Supabase serves them (edge-functions.ts), with the api
// function's local auth server in Supabase Auth's place: supabase-js, created with the project's URL
// as docs/check-in-app.md shows, signs in by e-mail code and calls each function with functions.invoke; the
// model provider is the OpenAI stand-in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { type MailSink, startMailSink } from "../../scripts/lib/mail-sink.ts";
import { type OpenAIStandIn, startOpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { APP_FUNCTIONS, VALID_BODIES } from "../app-functions/function-fixtures.ts";
import { codeMailedTo, newAddress, supabaseClient } from "../auth/local-auth-fixtures.ts";
import { createTestContext, TEST_JWT_SECRET, type TestContext } from "../setup/test-context.ts";
import { type HostedFunctions, serveHostedFunctions } from "./edge-functions.ts";

let t: TestContext;
let mail: MailSink;
let standIn: OpenAIStandIn;
let hosted: HostedFunctions;

beforeAll(async () => {
  t = await createTestContext();
  mail = await startMailSink();
  standIn = await startOpenAIStandIn();
  hosted = await serveHostedFunctions(["api", ...APP_FUNCTIONS], {
    GATEWAY_DATABASE_URL: t.config.GATEWAY_DATABASE_URL, APP_ENV: "test", JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"), SMTP_URL: mail.url,
    LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey(),
    ASSISTANT_API_KEY: standIn.apiKey, ASSISTANT_BASE_URL: `${standIn.url}/v1`,
  });
}, 300_000);
afterAll(async () => {
  await hosted?.stop();
  await standIn?.close();
  await mail?.close();
  await t?.close();
});

describe("supabase-js against the functions served as on Supabase", () => {
  it("signs in by e-mail code and calls each app function", async () => {
    const supabase = supabaseClient({ url: hosted.origin });
    const invoke = (name: (typeof APP_FUNCTIONS)[number]) => supabase.functions.invoke(name, { body: VALID_BODIES[name] as Record<string, unknown> });
    const email = newAddress("hosted");
    expect((await supabase.auth.signInWithOtp({ email })).error).toBeNull();
    expect((await supabase.auth.verifyOtp({ email, token: await codeMailedTo(mail, email), type: "email" })).error).toBeNull();

    standIn.scriptChat({ text: "Two events tonight." });
    const chat = await invoke("chat-with-assistant");
    expect(chat.error).toBeNull();
    expect(await (chat.data as Response).text()).toContain("Two events tonight.");

    standIn.scriptTranscription({ text: "what is on tonight" });
    const transcribed = await invoke("transcribe-audio");
    expect(transcribed.error).toBeNull();
    expect(transcribed.data).toMatchObject({ success: true, transcription: "what is on tonight" });

    const discovered = await invoke("discover-mcp-capabilities");
    expect(discovered.error).toBeNull();

    standIn.scriptChat({ text: "Berlin Web3 Night" });
    const renamed = await invoke("rename-chat-for-event");
    expect(renamed.error).toBeNull();
    expect(renamed.data).toMatchObject({ success: true, roomId: "room-1" });
  });
});
