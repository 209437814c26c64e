// Deno entry of the `checkout-jobs` edge function.
import { serve } from "../_shared/platform/runtime.ts";
import { servicesFromEnvironment } from "../_shared/services.ts";
import { createCheckoutJobsApp } from "./app.ts";

await serve(createCheckoutJobsApp(servicesFromEnvironment()).fetch);
