// One name per action across the MCP endpoints: the backend endpoint, the public endpoint and the
// assistant (which offers the public endpoint's tools through an in-memory link) never expose one
// operation under two names or one name for two operations; every name is verb_object; and each
// tool's toolset is the OpenAPI tag of the REST operation it runs, so the two lists agree.
import { describe, expect, it } from "vitest";
import { TAGS } from "../../supabase/functions/api/docs/handlers.ts";
import { backendTools } from "../../supabase/functions/api/app.ts";
import { publicTools } from "../../supabase/functions/_shared/mcp/public-server.ts";
import { endpoints } from "../../supabase/functions/api/registry.ts";
import type { ToolDefinition } from "../../supabase/functions/_shared/mcp/tools.ts";

const ENDPOINTS: Record<string, Readonly<Record<string, ToolDefinition>>> = { backend: backendTools, public: publicTools };
const everyTool = Object.entries(ENDPOINTS).flatMap(([endpoint, tools]) => Object.entries(tools).map(([key, tool]) => ({ endpoint, key, tool })));

/** The verbs tool names start with: one word per kind of action (get, not show or fetch; list, not find). */
const VERBS = new Set([
  "get", "list", "search", "create", "update", "delete", "save", "add", "remove", "register", "publish", "join", "leave", "reserve",
  "cancel", "approve", "decline", "reissue", "check", "undo", "record", "bind", "unbind", "mark", "build", "confirm", "encode",
  "complete", "retry", "request", "call",
]);

const snakeCase = (tag: string) => tag.toLowerCase().replace(/[^a-z0-9]+/g, "_");

describe("tool names", () => {
  it("name each operation once across both endpoints, and each name runs one operation", () => {
    const namesByOperation = new Map<string, Set<string>>();
    const operationByName = new Map<string, string>();
    for (const { endpoint, key, tool } of everyTool) {
      expect(key, `${endpoint} lists ${tool.name} under another key`).toBe(tool.name);
      const operation = tool.operation.name;
      namesByOperation.set(operation, (namesByOperation.get(operation) ?? new Set()).add(tool.name));
      const other = operationByName.get(tool.name);
      expect(other ?? operation, `${tool.name} runs ${operation} on ${endpoint} and ${other} elsewhere`).toBe(operation);
      operationByName.set(tool.name, operation);
    }
    const twice = [...namesByOperation].filter(([, names]) => names.size > 1).map(([operation, names]) => `${operation}: ${[...names].join(", ")}`);
    expect(twice).toEqual([]);
  });

  it("are verb_object, in snake case, starting with one of the verbs", () => {
    const outliers = everyTool.map(({ tool }) => tool.name)
      .filter((name) => !/^[a-z]+(_[a-z]+)+$/.test(name) || !VERBS.has(name.split("_")[0]!));
    expect([...new Set(outliers)]).toEqual([]);
  });
});

describe("toolsets", () => {
  const tagToolsets = new Set(TAGS.map((tag) => snakeCase(tag.name)));
  const routeOf = new Map(endpoints.map((endpoint) => [endpoint.operation as unknown, endpoint.route]));

  it("are the OpenAPI document's tags (or raw_api, the generic list_operations and call_api)", () => {
    for (const { tool } of everyTool) {
      expect(tool.toolset === "raw_api" || tagToolsets.has(tool.toolset), `${tool.name}: ${tool.toolset}`).toBe(true);
    }
    expect(Object.values(backendTools).filter((tool) => tool.toolset === "raw_api").map((tool) => tool.name)).toEqual(["list_operations", "call_api"]);
  });

  it("put each tool that runs a REST operation in that operation's tag", () => {
    for (const { tool } of everyTool) {
      const route = routeOf.get(tool.operation);
      if (route) expect(tool.toolset, tool.name).toBe(snakeCase(route.tags![0]!));
    }
  });
});
