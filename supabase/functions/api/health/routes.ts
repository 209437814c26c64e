import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, requestLimitResponses } from "../../_shared/http/errors.ts";

export const health = createRoute({
  operationId: "getHealth",
  method: "get",
  path: "/health",
  tags: ["Operations"],
  summary: "Liveness: the process answers",
  description: "Answers 200 while the process serves requests; it reads no database, so it tells an orchestrator whether to restart the process, not whether to send it traffic (GET /ready)",
  security: [],
  responses: {
    200: { description: "Alive", content: { "application/json": { schema: z.object({ status: z.literal("ok").describe("Always ok: the process answers") }) } } },
    ...requestLimitResponses(),
  },
});

export const ready = createRoute({
  operationId: "getReadiness",
  method: "get",
  path: "/ready",
  tags: ["Operations"],
  summary: "Readiness: the database answers and has every migration this code needs",
  description: "Answers 200 once the database answers and holds every migration this code needs; 503 (`database_unavailable`, `migrations_pending`, `unsafe_database_role`) otherwise, so a load balancer sends traffic only to a ready instance",
  security: [],
  responses: {
    200: {
      description: "Ready",
      content: {
        "application/json": {
          schema: z.object({
            status: z.literal("ready").describe("Always ready: the database answers and holds every migration this code needs"),
            schemaVersion: z.string().describe("The version (a timestamp, e.g. 20261128000200) of the latest migration the database holds"),
          }),
        },
      },
    },
    ...errorResponses(503),
  },
});
