// chat-with-assistant in the real Deno gateway (`npm start`'s), over HTTP: the `openai` client and
// the in-memory MCP link under Deno, the answer streamed through the gateway's connection relay, and
// a client that closes its connection ending the provider's request (Deno.serve aborts the
// request's signal), the partial answer stored as incomplete.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { type OpenAIStandIn, startOpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";
import { eventsOf, finalOf, readEvents, textOf } from "../app-functions/chat-fixtures.ts";
import { createEvent } from "../hubs/hub-fixtures.ts";
import { createTestContext, TEST_JWT_SECRET, type TestContext, type UserWithKey } from "../setup/test-context.ts";

let t: TestContext;
let standIn: OpenAIStandIn;
let gateway: GatewayProcess;
let user: UserWithKey;
let token: string;

beforeAll(async () => {
  t = await createTestContext();
  standIn = await startOpenAIStandIn();
  user = await t.userWithKey();
  gateway = await startGatewayProcess({
    DATABASE_URL: t.url, JWT_SECRET: TEST_JWT_SECRET, ASSISTANT_BASE_URL: `${standIn.url}/v1`, ASSISTANT_API_KEY: standIn.apiKey,
  });
  token = await new SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(user.authUserId)
    .setAudience("authenticated").setExpirationTime("5m").sign(new TextEncoder().encode(TEST_JWT_SECRET));
});
afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await standIn?.close();
  await t?.close();
});

const post = (name: string, body: unknown, signal?: AbortSignal) => fetch(`${gateway.url}/functions/v1/${name}`, {
  method: "POST",
  headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  body: JSON.stringify(body),
  signal,
});

describe("chat-with-assistant under Deno", () => {
  it("streams an answer that read the person's events through the in-memory MCP link", async () => {
    const eventId = await createEvent(t, user.key, { name: "Deno Night" });
    expect((await post("discover-mcp-capabilities", {})).status).toBe(200);
    standIn.scriptChat(
      { toolCalls: [{ id: "call_list", name: "list_events", arguments: { scope: "mine" } }], stream: { chunkSize: 3 } },
      (body) => ({ text: `Found ${JSON.parse(body.messages.at(-1)!.content as string).items[0].name}.`, stream: { chunkSize: 3 } }),
    );
    const events = await readEvents(await post("chat-with-assistant", { roomId: "room-deno", messageId: "m-deno-1", message: "My events?", useMCP: true }));

    expect(events.find((e) => e.type === "tool.result")!.data).toMatchObject({ status: "ok", result: { items: [{ id: eventId }] } });
    expect(textOf(events)).toBe("Found Deno Night.");
    expect(finalOf(events)).toMatchObject({ success: true, session_id: "room-deno" });
  });

  it("ends the provider's request when the client disconnects, and stores the partial answer as incomplete", async () => {
    standIn.reset();
    standIn.scriptChat({ text: "A slow answer that nobody will read to the end.", stream: { chunkSize: 3, delayMs: 80 } });
    const disconnect = new AbortController();
    const response = await post("chat-with-assistant", { roomId: "room-deno", messageId: "m-deno-2", message: "Tell me slowly" }, disconnect.signal);
    await expect((async () => {
      for await (const event of eventsOf(response)) if (event.type === "message.delta") disconnect.abort();
    })()).rejects.toThrow();

    await expect.poll(() => standIn.requests[0]?.ended, { timeout: 5000 }).toBe("client-closed");
    const answer = () => t.owner<{ status: string; content: string }[]>`
      select status, content from chat.messages where owner_id = ${user.id} and in_reply_to = 'm-deno-2'`;
    await expect.poll(async () => (await answer())[0]?.status, { timeout: 5000 }).toBe("incomplete");
    expect((await answer())[0]!.content.length).toBeGreaterThan(0);
  });
});
