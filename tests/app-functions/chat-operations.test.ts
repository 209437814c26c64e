// The chat operations run without HTTP, as any surface would call them: the chat turn yields its
// typed events (the adapter writes them as Server-Sent Events; the domain builds no Response), and
// renaming answers the room's new name, each as the person (RLS).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { OpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";
import { providerClient } from "../../supabase/functions/_shared/ai/provider.ts";
import type { Principal } from "../../supabase/functions/_shared/auth/principal.ts";
import { answerTurn } from "../../supabase/functions/_shared/chat/assistant.ts";
import type { PublicToolSurface } from "../../supabase/functions/_shared/chat/assistant-tools.ts";
import { renameRoomForEvent } from "../../supabase/functions/_shared/chat/rename.ts";
import type { ChatStreamEvent } from "../../supabase/functions/_shared/chat/stream-events.ts";
import { contextFor, runOperation } from "../../supabase/functions/_shared/operations/operation.ts";
import { expectScriptedAnswersUsed, type FunctionsWorld, startProviderWorld } from "./function-fixtures.ts";

let standIn: OpenAIStandIn;
let world: FunctionsWorld;
beforeAll(async () => {
  ({ standIn, world } = await startProviderWorld());
});
afterEach(() => expectScriptedAnswersUsed(standIn));
afterAll(async () => {
  await world?.close();
  await standIn?.close();
});

async function personContext() {
  const user = await world.t.userWithKey();
  const principal: Principal = { kind: "session", userId: user.id, authUserId: user.authUserId, claims: { sub: user.authUserId } };
  return contextFor({ db: world.t.db, config: world.t.config }, principal, crypto.randomUUID());
}

const client = () => providerClient(world.t.config)!;
// A turn without tools, approvals or a grant to turn on never opens the tool surface.
const NO_TOOLS = {} as PublicToolSurface;

async function turn(context: Awaited<ReturnType<typeof personContext>>, messageId: string): Promise<ChatStreamEvent[]> {
  const operation = answerTurn({ client: client(), tools: NO_TOOLS, resource: "http://localhost/functions/v1/chat-with-assistant" });
  const { status, body } = await runOperation(operation, context, {
    roomId: "room-a", messageId, text: "What is on tonight?", origin: "text", model: "gpt-4o-mini", useTools: false,
    settlement: { approve: [], decline: [] }, enableAssistant: false, signal: new AbortController().signal,
  });
  expect(status).toBe(200);
  const events: ChatStreamEvent[] = [];
  for await (const event of body as AsyncIterable<ChatStreamEvent>) events.push(event);
  return events;
}

describe("the chat turn", () => {
  it("yields its typed events, and the stored answer again for the same message", async () => {
    const context = await personContext();
    standIn.scriptChat({ text: "The Lisbon meetup.", stream: { chunkSize: 6 } });
    const messageId = crypto.randomUUID();
    const events = await turn(context, messageId);
    expect(events.map((e) => e.type)).toEqual(["message.start", "message.delta", "message.delta", "message.delta", "done"]);
    expect(events[0]!.data).toMatchObject({ session_id: "room-a", messageId, replayed: false });
    expect(events.at(-1)!.data).toEqual({ success: true, message: "The Lisbon meetup.", tool_results: [], session_id: "room-a", status: "complete", replayed: false });

    const replayed = await turn(context, messageId);
    expect(replayed.map((e) => e.type)).toEqual(["message.start", "message.delta", "done"]);
    expect(replayed.at(-1)!.data).toMatchObject({ success: true, message: "The Lisbon meetup.", replayed: true });
  });
});

describe("renaming", () => {
  it("names the person's room from the model's proposal, and refuses a room that is not theirs", async () => {
    const context = await personContext();
    const { userId } = context.principal as Extract<Principal, { kind: "session" }>;
    await world.t.owner`insert into chat.rooms (owner_id, room_id) values (${userId}, 'room-r')`;
    standIn.scriptChat({ text: "\"Lisbon Meetup Chat\"" });
    const rename = renameRoomForEvent(client());
    const input = { roomId: "room-r", eventTitle: "Lisbon meetup", signal: new AbortController().signal };
    expect((await runOperation(rename, context, input)).body).toEqual({ success: true, roomId: "room-r", name: "Lisbon Meetup Chat" });
    await expect(runOperation(rename, await personContext(), input)).rejects.toMatchObject({ status: 404, code: "room_not_found" });
  });
});
