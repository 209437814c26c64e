// The rename-chat-for-event function: the common rules (app-functions/app.ts), then the person's room
// named after its event (_shared/chat/rename.ts).
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import { missingProvider, providerClient } from "../_shared/ai/provider.ts";
import { renameRoomForEvent } from "../_shared/chat/rename.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { runOperation } from "../_shared/operations/operation.ts";
import { renameRoute } from "../_shared/app-functions/rename-chat-for-event.ts";

export function createRenameChatForEventApp(services: AppServices) {
  const client = providerClient(services.config);
  // missingProvider answers 503 without a client.
  const rename = client && renameRoomForEvent(client);
  return createFunctionApp(services, {
    route: renameRoute,
    ratePerMinute: (config) => config.RENAME_CHAT_FOR_EVENT_RATE_LIMIT_PER_MINUTE,
    missingProvider: missingProvider("rename-chat-for-event"),
    handle: ({ body, context, signal }) => runOperation(rename!, context, { ...body, signal }),
  });
}
