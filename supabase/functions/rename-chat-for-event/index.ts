// Deno entry of the `rename-chat-for-event` edge function.
import { serve } from "../_shared/platform/runtime.ts";
import { servicesFromEnvironment } from "../_shared/services.ts";
import { createRenameChatForEventApp } from "./app.ts";

await serve(createRenameChatForEventApp(servicesFromEnvironment()).fetch);
