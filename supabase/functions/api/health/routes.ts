import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses } from "../../_shared/http/errors.ts";

export const health = createRoute({
  operationId: "getHealth",
  method: "get",
  path: "/health",
  tags: ["Operations"],
  summary: "Liveness: the process answers",
  security: [],
  responses: { 200: { description: "Alive", content: { "application/json": { schema: z.object({ status: z.literal("ok") }) } } } },
});

export const ready = createRoute({
  operationId: "getReadiness",
  method: "get",
  path: "/ready",
  tags: ["Operations"],
  summary: "Readiness: the database answers and has every migration this code needs",
  security: [],
  responses: {
    200: {
      description: "Ready",
      content: { "application/json": { schema: z.object({ status: z.literal("ready"), schemaVersion: z.string() }) } },
    },
    ...errorResponses(503),
  },
});
