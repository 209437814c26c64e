// Deno entry of the `discover-mcp-capabilities` edge function.
import { serve } from "../_shared/platform/runtime.ts";
import { servicesFromEnvironment } from "../_shared/services.ts";
import { createDiscoverMcpCapabilitiesApp } from "./app.ts";

await serve(createDiscoverMcpCapabilitiesApp(servicesFromEnvironment()).fetch);
