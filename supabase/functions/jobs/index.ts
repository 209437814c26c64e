// Deno entry of the `jobs` edge function.
import { serve } from "../_shared/platform/runtime.ts";
import { servicesFromEnvironment } from "../_shared/services.ts";
import { createJobsApp } from "./app.ts";

await serve(createJobsApp(servicesFromEnvironment()).fetch);
