// chat-with-assistant with useMCP: the model calls the service's public MCP tools as the person,
// through the MCP SDK's client linked in memory (the same tools, audit and confirmation links as
// /mcp): a read of the person's events, a wallet link that answers a link and changes nothing, a
// write that waits for the person's approval of its call id, the registry deciding what is offered, and the cap on tool
// rounds.
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEvent } from "../hubs/hub-fixtures.ts";
import { type ChatWorld, finalOf, newMessageId, startChatWorld, textOf, typesOf } from "./chat-fixtures.ts";
import { expectScriptedAnswersUsed } from "./function-fixtures.ts";

let chat: ChatWorld;
beforeAll(async () => {
  chat = await startChatWorld();
});
afterEach(() => expectScriptedAnswersUsed(chat.standIn));
afterAll(() => chat?.close());

/** The tool messages the model was sent, parsed. */
const toolMessages = (body: ChatCompletionCreateParams) =>
  body.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content as string));
const offeredNames = (body: ChatCompletionCreateParams) => (body.tools ?? []).map((t) => (t.type === "function" ? t.function.name : t.type));

describe("reading through the public MCP tools", () => {
  it("lists the person's own events with list_events, recorded in their MCP audit as the in-app assistant", async () => {
    const { user, token } = await chat.person();
    const eventId = await createEvent(chat.world.t, user.key, { name: "Lisbon Builders Meetup" });
    chat.standIn.scriptChat(
      { toolCalls: [{ id: "call_list", name: "list_events", arguments: { scope: "mine" } }], stream: { chunkSize: 4 } },
      (body) => ({ text: `You have ${toolMessages(body)[0].items.length} event: ${toolMessages(body)[0].items[0].name}.` }),
    );
    const events = await chat.ask(token, { roomId: "room-t1", messageId: newMessageId(), message: "What are my events?", useMCP: true });

    expect(typesOf(events).filter((type) => type !== "message.delta")).toEqual(["message.start", "tool.call", "tool.result", "done"]);
    const call = events.find((e) => e.type === "tool.call")!.data;
    expect(call).toEqual({ id: "call_list", name: "list_events", arguments: { scope: "mine" } });
    const result = events.find((e) => e.type === "tool.result")!.data;
    expect(result).toMatchObject({ id: "call_list", name: "list_events", status: "ok", result: { items: [{ id: eventId, name: "Lisbon Builders Meetup" }] } });
    expect(textOf(events)).toBe("You have 1 event: Lisbon Builders Meetup.");
    expect(finalOf(events)).toMatchObject({ success: true, tool_results: [{ id: "call_list", name: "list_events", status: "ok" }] });

    // What the model was offered: registered tools, as JSON Schema functions; then the round trip.
    const [first, second] = chat.standIn.requests;
    expect(offeredNames(first!.body!)).toEqual(expect.arrayContaining(["list_events", "get_event", "delete_event", "request_wallet_link"]));
    expect(first!.body!.tool_choice).toBe("auto");
    expect(second!.body!.messages.at(-2)).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_list", function: { name: "list_events" } }] });

    const audit = await chat.world.t.owner`select endpoint, tool, client_id, outcome, scopes from mcp.tool_calls where user_id = ${user.id}`;
    expect(audit).toEqual([{ endpoint: "public", tool: "list_events", client_id: "eventhub-app-assistant", outcome: "ok", scopes: expect.arrayContaining(["events:read"]) }]);
  });

  it("answers a wallet link with its confirmation link and links nothing", async () => {
    const { user, token } = await chat.person();
    chat.standIn.scriptChat(
      { toolCalls: [{ id: "call_link", name: "request_wallet_link", arguments: { chainId: 31337 } }] },
      (body) => ({ text: `Open this link to link your wallet: ${toolMessages(body)[0].url}` }),
    );
    const events = await chat.ask(token, { roomId: "room-t2", messageId: newMessageId(), message: "Link my wallet", useMCP: true });

    const link = events.find((e) => e.type === "confirmation.link")!.data;
    expect(link).toMatchObject({ id: "call_link", name: "request_wallet_link", kind: "wallet_link", action: { chainId: 31337 } });
    expect(link.url).toMatch(new RegExp(`^${chat.world.t.config.PUBLIC_API_ROOT}/confirm/${link.confirmationId}#token=mcf_`));
    expect(textOf(events)).toContain(link.url);
    expect(finalOf(events).tool_results[0]).toMatchObject({ status: "ok", confirmation: { url: link.url, kind: "wallet_link" } });

    const [confirmation] = await chat.world.t.owner`select c.status, g.client_id, g.user_id from mcp_confirmations.confirmations c
      join mcp_oauth.grants g on g.id = c.grant_id where c.id = ${link.confirmationId}`;
    expect(confirmation).toEqual({ status: "pending", client_id: "eventhub-app-assistant", user_id: user.id });
    expect(await chat.world.t.owner`select 1 from core.crypto_addresses where user_id = ${user.id}`).toHaveLength(0);
  });

  it("hands the model a tool's error with its code and message: an unknown event is not_found", async () => {
    const { token } = await chat.person();
    chat.standIn.scriptChat(
      { toolCalls: [{ id: "call_missing", name: "get_event", arguments: { eventId: "65f1c0a2b3d4e5f601234567" } }] },
      (body) => ({ text: `That event: ${toolMessages(body)[0].error.code}.` }),
    );
    const events = await chat.ask(token, { roomId: "room-t7", messageId: newMessageId(), message: "Show me that event", useMCP: true });

    expect(events.find((e) => e.type === "tool.result")!.data).toMatchObject({ id: "call_missing", name: "get_event", status: "error", error: { code: "not_found" } });
    const [, second] = chat.standIn.requests;
    expect(toolMessages(second!.body!)).toEqual([{ error: { code: "not_found", message: expect.stringMatching(/\S/) } }]);
    expect(textOf(events)).toBe("That event: not_found.");
  });
});

describe("a write the model asks for", () => {
  it("waits for the person to approve its call id, then runs exactly the call they were shown", async () => {
    const { user, token } = await chat.person();
    const create = { name: "Rooftop Jam", startsAt: "2026-12-12T20:00:00+01:00", endsAt: "2026-12-12T23:00:00+01:00", timeZone: "Europe/Lisbon", status: "PUBLISHED", visibility: "public" };
    chat.standIn.scriptChat(
      { toolCalls: [{ id: "call_create", name: "create_event", arguments: create }] },
      (body) => ({ text: `Shall I create it? (${toolMessages(body)[0].status})` }),
    );
    const roomId = "room-t3";
    const asked = await chat.ask(token, { roomId, messageId: newMessageId(), message: "Create a Rooftop Jam on the 12th", useMCP: true });

    expect(typesOf(asked)).not.toContain("tool.result");
    const required = asked.find((e) => e.type === "confirmation.required")!.data;
    expect(required).toEqual({
      id: "call_create", callId: expect.any(String), name: "create_event", title: "Create an event", arguments: create, destructive: false,
      expiresAt: expect.any(String),
    });
    const { callId } = required;
    expect(textOf(asked)).toBe("Shall I create it? (awaiting_confirmation)");
    expect(finalOf(asked).tool_results).toEqual([{ id: "call_create", callId, name: "create_event", arguments: create, status: "awaiting_confirmation" }]);
    const mine = () => chat.world.t.owner`select name from community.events where owner_id = ${user.id}`;
    expect(await mine()).toHaveLength(0);

    chat.standIn.scriptChat((body) => ({ text: `Created: ${toolMessages(body)[0].name}.` }));
    const approved = await chat.ask(token, { roomId, messageId: newMessageId(), message: "Yes!", useMCP: true, approve: [callId] });

    expect(typesOf(approved).slice(0, 3)).toEqual(["message.start", "tool.call", "tool.result"]);
    expect(approved[1]!.data).toEqual({ id: callId, name: "create_event", arguments: create, approved: true });
    expect(approved[2]!.data).toMatchObject({ status: "ok", result: { name: "Rooftop Jam" } });
    expect(textOf(approved)).toBe("Created: Rooftop Jam.");
    expect(await mine()).toEqual([{ name: "Rooftop Jam" }]);
    // The model saw the person's yes, then the call and its result, in the order OpenAI requires.
    const sent = chat.standIn.requests.at(-1)!.body!.messages.slice(-3);
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(await chat.world.t.owner`select status from chat.proposed_calls where id = ${callId}`).toEqual([{ status: "approved" }]);

    // A yes in words runs nothing.
    chat.standIn.scriptChat({ text: "Nothing to do." });
    const again = await chat.ask(token, { roomId, messageId: newMessageId(), message: "yes", useMCP: true });
    expect(typesOf(again)).not.toContain("tool.call");
    expect(await mine()).toHaveLength(1);
  });
});

describe("what is offered", () => {
  it("offers only registered, enabled tools: a tool switched off is neither offered nor run", async () => {
    const { user, token } = await chat.person();
    await chat.world.t.owner`update chat.capabilities set enabled = false where source = 'service' and tool_name = 'list_events'`;
    try {
      chat.standIn.scriptChat({ toolCalls: [{ id: "call_off", name: "list_events", arguments: {} }] }, { text: "I cannot list them." });
      const events = await chat.ask(token, { roomId: "room-t4", messageId: newMessageId(), message: "My events?", useMCP: true });
      expect(offeredNames(chat.standIn.requests[0]!.body!)).not.toContain("list_events");
      expect(events.find((e) => e.type === "tool.result")!.data).toMatchObject({ status: "error", error: { code: "unknown_tool" } });
      expect(await chat.world.t.owner`select 1 from mcp.tool_calls where user_id = ${user.id}`).toHaveLength(0);
    } finally {
      await chat.world.t.owner`update chat.capabilities set enabled = true where source = 'service' and tool_name = 'list_events'`;
    }
  });

  it("offers no tool without useMCP", async () => {
    const { token } = await chat.person();
    chat.standIn.scriptChat({ text: "Hello." });
    await chat.ask(token, { roomId: "room-t5", messageId: newMessageId(), message: "Hi" });
    expect(chat.standIn.requests[0]!.body).not.toHaveProperty("tools");
  });
});

describe("the cap on tool rounds", () => {
  it("runs five rounds of tool calls, then asks for words, and runs nothing more whatever the model says", async () => {
    const { user, token } = await chat.person();
    const listAgain = { toolCalls: [{ name: "list_events", arguments: { scope: "mine" } }] };
    chat.standIn.scriptChat(listAgain, listAgain, listAgain, listAgain, listAgain, (body) => ({ ...listAgain, text: `tool_choice ${body.tool_choice}` }));
    const events = await chat.ask(token, { roomId: "room-t6", messageId: newMessageId(), message: "Keep listing", useMCP: true });

    expect(chat.standIn.requests.map((r) => r.body!.tool_choice)).toEqual(["auto", "auto", "auto", "auto", "auto", "none"]);
    expect(events.filter((e) => e.type === "tool.result")).toHaveLength(5);
    expect(textOf(events)).toBe("tool_choice none");
    const final = finalOf(events);
    expect(final.success).toBe(true);
    expect(final.tool_results.at(-1)).toMatchObject({ name: "list_events", status: "skipped", error: { code: "tool_rounds_exhausted" } });
    expect(await chat.world.t.owner`select 1 from mcp.tool_calls where user_id = ${user.id}`).toHaveLength(5);
  });
});
