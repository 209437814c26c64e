// rename-chat-for-event against the OpenAI stand-in with the real `openai` client: the room named from
// its event (read as the person), the model's answer cleaned and capped, the event's title when the
// provider fails or answers nothing, and rooms and events the person may not use refused with 404.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { OpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";
import { cleanRoomName } from "../../supabase/functions/_shared/chat/room-name.ts";
import { createEvent } from "../hubs/hub-fixtures.ts";
import { expectErrorBody, type UserWithKey } from "../setup/test-context.ts";
import { expectScriptedAnswersUsed, type FunctionsWorld, startProviderWorld } from "./function-fixtures.ts";

let standIn: OpenAIStandIn;
let world: FunctionsWorld;
let ana: UserWithKey;
let ben: UserWithKey;
let anaToken: string;
let eventId: string;

beforeAll(async () => {
  ({ standIn, world } = await startProviderWorld({ RENAME_CHAT_FOR_EVENT_RATE_LIMIT_PER_MINUTE: "1000" }));
  [ana, ben] = [await world.t.userWithKey(), await world.t.userWithKey()];
  anaToken = await world.sessionToken(ana);
  eventId = await createEvent(world.t, ben.key, { name: "Berlin Web3 Night", description: "Talks and drinks at the river." });
});
afterEach(() => expectScriptedAnswersUsed(standIn));
afterAll(async () => {
  await world?.close();
  await standIn?.close();
});

async function room(owner: UserWithKey, roomId: string, event: string | null = null) {
  await world.t.owner`insert into chat.rooms (owner_id, room_id, event_id) values (${owner.id}, ${roomId}, ${event})`;
}
const nameOf = async (owner: UserWithKey, roomId: string) =>
  (await world.t.owner<{ name: string | null }[]>`select name from chat.rooms where owner_id = ${owner.id} and room_id = ${roomId}`)[0]?.name;
const rename = (body: Record<string, unknown>, token = anaToken) => world.post("rename-chat-for-event", body, token);

describe("rename-chat-for-event", () => {
  it("names the room from its event's title and description with one completion, and stores the name", async () => {
    await room(ana, "night-room", eventId);
    standIn.scriptChat({ text: "River Talks Berlin" });

    const response = await rename({ roomId: "night-room" });

    expect(await response.json()).toEqual({ success: true, roomId: "night-room", name: "River Talks Berlin" });
    expect(await nameOf(ana, "night-room")).toBe("River Talks Berlin");
    const asked = standIn.requests[0]!.body!;
    expect(asked.stream ?? false).toBe(false);
    expect(asked.model).toBe("gpt-4o-mini");
    expect(JSON.stringify(asked.messages)).toContain("Berlin Web3 Night");
    expect(JSON.stringify(asked.messages)).toContain("Talks and drinks at the river.");
  });

  it("names a room without event from eventTitle and context", async () => {
    await room(ana, "plain-room");
    standIn.scriptChat({ text: "Rooftop Jazz" });
    const response = await rename({ roomId: "plain-room", eventTitle: "Jazz on the roof", context: "Saturday, bring a coat" });
    expect(await response.json()).toMatchObject({ name: "Rooftop Jazz" });
    expect(JSON.stringify(standIn.requests[0]!.body!.messages)).toContain("Saturday, bring a coat");
    await expectErrorBody(await rename({ roomId: "plain-room" }), 400, "missing_event_title");
  });

  it("cleans the model's answer of quotes, markdown and extra lines, and caps it at 60 characters", async () => {
    await room(ana, "clean-room", eventId);
    standIn.scriptChat({ text: '**"Berlin Web3 Night: Talks, Drinks and Builders by the River Spree at Dusk Together"**\nHere is why...' });
    const { name } = await (await rename({ roomId: "clean-room" })).json();
    expect(name).toBe("Berlin Web3 Night: Talks, Drinks and Builders by the River");
    expect([...name].length).toBeLessThanOrEqual(60);

    expect(cleanRoomName("# Name: `Rooftop` _Jazz_.")).toBe("Rooftop Jazz");
    expect(cleanRoomName("\n\n  ‘Café   Crème’  \n2. other")).toBe("Café Crème");
    expect(cleanRoomName("x".repeat(80))).toBe("x".repeat(60));
    expect(cleanRoomName("\"\"")).toBe("");
  });

  it("answers and stores a name without bidirectional controls, the model's or the event title's", async () => {
    const [rlo, pdf, lri, pdi] = ["\u202E", "\u202C", "\u2066", "\u2069"];
    await room(ana, "bidi-room", eventId);
    standIn.scriptChat({ text: `Pay ${rlo}gnp.exe${pdf} now` });
    expect(await (await rename({ roomId: "bidi-room" })).json()).toMatchObject({ name: "Pay gnp.exe now" });
    expect(await nameOf(ana, "bidi-room")).toBe("Pay gnp.exe now");

    const planted = await createEvent(world.t, ben.key, { name: `Night ${lri}${rlo}market${pdf}${pdi}`, description: "x" });
    await room(ana, "bidi-title-room", planted);
    standIn.scriptChat({ error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } });
    expect(await (await rename({ roomId: "bidi-title-room" })).json()).toMatchObject({ name: "Night market" });
    expect(await nameOf(ana, "bidi-title-room")).toBe("Night market");
  });

  it("falls back to the event's title when the provider fails or answers nothing usable", async () => {
    await room(ana, "fallback-room", eventId);
    standIn.scriptChat({ error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } });
    expect(await (await rename({ roomId: "fallback-room" })).json()).toMatchObject({ name: "Berlin Web3 Night" });
    expect(standIn.requests, "tried three times").toHaveLength(3);

    standIn.reset();
    standIn.scriptChat({ text: "``` ```" });
    expect(await (await rename({ roomId: "fallback-room" })).json()).toMatchObject({ name: "Berlin Web3 Night" });
    expect(await nameOf(ana, "fallback-room")).toBe("Berlin Web3 Night");
  });

  it("refuses another person's room and an event the person can no longer see with 404, calling no provider", async () => {
    await room(ben, "bens-room", eventId);
    await expectErrorBody(await rename({ roomId: "bens-room", eventTitle: "Mine now" }), 404, "room_not_found");
    expect(await nameOf(ben, "bens-room")).toBeNull();

    const hidden = await createEvent(world.t, ben.key, { name: "Ben's private dinner", visibility: "private" });
    await room(ana, "hidden-room", hidden);
    await expectErrorBody(await rename({ roomId: "hidden-room", eventTitle: "Dinner" }), 404, "event_not_found");
    expect(standIn.requests).toHaveLength(0);
  });
});
