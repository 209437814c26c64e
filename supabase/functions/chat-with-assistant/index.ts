// Deno entry of the `chat-with-assistant` edge function.
import { serve } from "../_shared/platform/runtime.ts";
import { servicesFromEnvironment } from "../_shared/services.ts";
import { createChatWithAssistantApp } from "./app.ts";

await serve(createChatWithAssistantApp(servicesFromEnvironment()).fetch);
