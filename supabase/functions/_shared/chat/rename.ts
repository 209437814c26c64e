// Naming a person's chat room after its event: the room and the event it is tied to, read as the
// person (RLS), one short completion proposing a name from the event's title and description,
// cleaned and capped (room-name.ts), and the name stored on the room. When the provider fails or
// proposes nothing usable, the room is named after the event's title.
import type OpenAI from "openai";
import { callProvider } from "../ai/provider.ts";
import { ApiError } from "../http/errors.ts";
import { ok, operation, type OperationContext } from "../operations/operation.ts";
import { capped, cleanRoomName } from "./room-name.ts";

/** How much of the event's description the model reads. */
const MAX_CONTEXT_CHARS = 2000;

const INSTRUCTIONS = "You name chat rooms. Answer with only a short name (at most six words) for a chat about the event below: " +
  "no quotes, no markdown, no explanation.";

export interface RenameRoomInput {
  roomId: string;
  /** The event's title, for a room tied to no event. */
  eventTitle?: string;
  /** What the event is about, instead of its description. */
  context?: string;
  /** Aborted when the caller goes away: ends the provider's request. */
  signal: AbortSignal;
}

interface EventOfRoom {
  title: string;
  description: string;
}

/**
 * The title and description to name room `roomId` after: its event's (404 event_not_found when the
 * person can no longer see it), else what the request says. 404 room_not_found when the person has no
 * such room; 400 missing_event_title when neither names the event.
 */
async function eventOfRoom(context: OperationContext, input: RenameRoomInput): Promise<EventOfRoom> {
  const [room] = await context.db.statement((tx) =>
    tx<{ event_id: string | null; name: string | null; description: string | null }[]>`
      select r.event_id, e.name, e.description
      from chat.rooms r left join community.events e on e.id = r.event_id
      where r.owner_id = core.current_user_id() and r.room_id = ${input.roomId}`
  );
  if (!room) throw new ApiError(404, "room_not_found", `You have no chat room ${input.roomId}.`);
  if (room.event_id !== null && room.name === null) throw new ApiError(404, "event_not_found", "The room's event is not visible to you.");
  const title = room.name ?? input.eventTitle;
  if (title === undefined) throw new ApiError(400, "missing_event_title", "The room is tied to no event: send eventTitle.");
  return { title, description: input.context ?? room.description ?? "" };
}

/** The model's proposal, cleaned; empty when the provider failed or proposed nothing usable. */
async function proposedName(client: OpenAI, model: string, event: EventOfRoom, signal: AbortSignal): Promise<string> {
  const prompt = `Event: ${event.title}\nDescription: ${event.description.slice(0, MAX_CONTEXT_CHARS)}`;
  try {
    const completion = await callProvider(() =>
      client.chat.completions.create({
        model,
        messages: [{ role: "system", content: INSTRUCTIONS }, { role: "user", content: prompt }],
        max_tokens: 32,
      }, { signal }), signal);
    return cleanRoomName(completion.choices[0]?.message.content ?? "");
  } catch (error) {
    const status = (error as { status?: number }).status;
    console.warn(`rename-chat-for-event: the provider failed (${status ? `HTTP ${status}` : (error as Error).name}); the room is named after its event.`);
    return "";
  }
}

/** Names the person's room, asking `client`; answers the room and its name as stored. */
export const renameRoomForEvent = (client: OpenAI) =>
  operation({
    name: "chat.rename_room_for_event",
    // The provider is asked between the read and the write.
    ownTransactions: true,
    async run(context, input: RenameRoomInput) {
      const event = await eventOfRoom(context, input);
      const name = await proposedName(client, context.config.RENAME_CHAT_FOR_EVENT_MODEL, event, input.signal) || capped(event.title.trim());
      // The name as stored: the database strips bidirectional controls from every room name.
      const [stored] = await context.db.statement((tx) =>
        tx<{ name: string | null }[]>`
          update chat.rooms set name = ${name} where owner_id = core.current_user_id() and room_id = ${input.roomId} returning name`
      );
      if (!stored) throw new ApiError(404, "room_not_found", `You have no chat room ${input.roomId}.`);
      return ok({ success: true as const, roomId: input.roomId, name: stored.name ?? "" });
    },
  });
