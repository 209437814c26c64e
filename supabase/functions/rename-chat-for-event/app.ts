// The rename-chat-for-event function: the common rules (app-functions/app.ts), then the person's room
// and the event it is tied to, read as the person (RLS), one short completion proposing a name from
// the event's title and description, cleaned and capped (room-name.ts), and the name stored on the
// room. When the provider fails or proposes nothing usable, the room is named after the event's title.
import type OpenAI from "openai";
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import { callProvider, missingProvider, providerClient } from "../_shared/ai/provider.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { ApiError } from "../_shared/http/errors.ts";
import { ok, type OperationContext } from "../_shared/operations/operation.ts";
import { capped, cleanRoomName } from "./room-name.ts";
import { renameRoute } from "../_shared/app-functions/rename-chat-for-event.ts";

/** How much of the event's description the model reads. */
const MAX_CONTEXT_CHARS = 2000;

const INSTRUCTIONS = "You name chat rooms. Answer with only a short name (at most six words) for a chat about the event below: " +
  "no quotes, no markdown, no explanation.";

interface EventOfRoom {
  title: string;
  description: string;
}

/**
 * The title and description to name room `roomId` after: its event's (404 event_not_found when the
 * person can no longer see it), else what the request says. 404 room_not_found when the person has no
 * such room; 400 missing_event_title when neither names the event.
 */
async function eventOfRoom(context: OperationContext, roomId: string, body: { eventTitle?: string; context?: string }): Promise<EventOfRoom> {
  const [room] = await context.db.statement((tx) =>
    tx<{ event_id: string | null; name: string | null; description: string | null }[]>`
      select r.event_id, e.name, e.description
      from chat.rooms r left join community.events e on e.id = r.event_id
      where r.owner_id = core.current_user_id() and r.room_id = ${roomId}`
  );
  if (!room) throw new ApiError(404, "room_not_found", `You have no chat room ${roomId}.`);
  if (room.event_id !== null && room.name === null) throw new ApiError(404, "event_not_found", "The room's event is not visible to you.");
  const title = room.name ?? body.eventTitle;
  if (title === undefined) throw new ApiError(400, "missing_event_title", "The room is tied to no event: send eventTitle.");
  return { title, description: body.context ?? room.description ?? "" };
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

export function createRenameChatForEventApp(services: AppServices) {
  const client = providerClient(services.config);
  return createFunctionApp(services, {
    route: renameRoute,
    ratePerMinute: (config) => config.RENAME_CHAT_FOR_EVENT_RATE_LIMIT_PER_MINUTE,
    missingProvider: missingProvider("rename-chat-for-event"),
    async handle({ body, context, signal }) {
      const event = await eventOfRoom(context, body.roomId, body);
      const name = await proposedName(client!, context.config.RENAME_CHAT_FOR_EVENT_MODEL, event, signal) || capped(event.title.trim());
      // The name as stored: the database strips bidirectional controls from every room name.
      const [stored] = await context.db.statement((tx) =>
        tx<{ name: string | null }[]>`
          update chat.rooms set name = ${name} where owner_id = core.current_user_id() and room_id = ${body.roomId} returning name`
      );
      if (!stored) throw new ApiError(404, "room_not_found", `You have no chat room ${body.roomId}.`);
      return ok({ success: true, roomId: body.roomId, name: stored.name ?? "" });
    },
  });
}
