// The four app-backend functions as the API's document describes them: each on the app host
// ({app_url}), and chat-with-assistant's stream as it really is: every event a real answer sends is
// one the document names, with data its schema accepts.
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createEvent } from "../hubs/hub-fixtures.ts";
import { type ChatEvent, type ChatWorld, newMessageId, startChatWorld } from "./chat-fixtures.ts";
import { APP_FUNCTIONS, expectScriptedAnswersUsed } from "./function-fixtures.ts";

let chat: ChatWorld;
// deno-lint-ignore no-explicit-any
let document: any;
beforeAll(async () => {
  chat = await startChatWorld();
  document = await (await chat.world.t.call("/api/v3/openapi")).json();
});
afterEach(() => expectScriptedAnswersUsed(chat.standIn));
afterAll(() => chat?.close());

describe("the app functions in the API's document", () => {
  it("documents all four, each at /functions/v1/<name> on the {app_url} server", () => {
    const origin = new URL(chat.world.t.config.PUBLIC_API_ROOT).origin;
    for (const name of APP_FUNCTIONS) {
      const operation = document.paths[`/functions/v1/${name}`]?.post;
      expect(operation, name).toBeDefined();
      expect(operation.security, name).toEqual([{ SessionAuth: [] }]);
      const [server] = operation.servers;
      expect(server.url, name).toBe("{app_url}");
      expect(server.variables.app_url.default, name).toBe(origin);
    }
  });

  it("describes every event of a real chat-with-assistant stream, each event's data by its schema", async () => {
    const streamSchema = document.paths["/functions/v1/chat-with-assistant"].post.responses["200"].content["text/event-stream"].schema;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: "openapi.json", components: document.components });
    const validEvent = ajv.compile({ $ref: `openapi.json${streamSchema.$ref.replace(/^#/, "#")}` });
    const documentedNames = document.components.schemas.ChatStreamEvent.anyOf
      .map((variant: { properties: { event: { const?: string; enum?: string[] } } }) => variant.properties.event.const ?? variant.properties.event.enum?.[0]);
    expect(documentedNames).toEqual(expect.arrayContaining(["message.start", "message.delta", "done"]));
    expect(validEvent({ event: "done", data: {} }), "the documented schema refuses an incomplete event").toBe(false);

    const { user, token } = await chat.person();
    const eventId = await createEvent(chat.world.t, user.key, { name: "To delete" });
    const roomId = "room-documented";
    chat.standIn.scriptChat({ toolCalls: [{ id: "call_doc", name: "delete_event", arguments: { eventId } }] }, { text: "Approve it in the app." });
    const asked = await chat.ask(token, { roomId, messageId: newMessageId(), message: "Delete it", useMCP: true });
    const callId = asked.find((e) => e.type === "confirmation.required")!.data.callId;
    chat.standIn.scriptChat({ text: "Deleted." });
    const approved = await chat.ask(token, { roomId, messageId: newMessageId(), message: "Approved in the app", approve: [callId] });

    const events: ChatEvent[] = [...asked, ...approved];
    expect(new Set(events.map((e) => e.type))).toEqual(new Set(["message.start", "tool.call", "confirmation.required", "tool.result", "message.delta", "done"]));
    for (const { type, data } of events) {
      expect(documentedNames, type).toContain(type);
      expect(validEvent({ event: type, data }) ? [] : validEvent.errors, `${type} ${JSON.stringify(data)}`).toEqual([]);
    }
  });
});
