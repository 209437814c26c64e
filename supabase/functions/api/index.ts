// Deno entry of the `api` edge function.
import { serve } from "../_shared/platform/runtime.ts";
import { servicesFromEnvironment } from "../_shared/services.ts";
import { createApiApp } from "./app.ts";

await serve(createApiApp(servicesFromEnvironment()).fetch);
