// A client's choice of tools on an MCP endpoint: some toolsets (each tool names its own, in its
// definition) and/or read-only mode, by header (X-MCP-Toolsets: events,check_in; X-MCP-Readonly:
// true) or by URL path for clients that cannot set headers (<endpoint>/x/events,check_in,
// <endpoint>/readonly, <endpoint>/x/events/readonly). tools/list answers only the chosen tools, and a
// call of another is refused with the reason. Without a choice, every tool.
import { ApiError } from "../http/errors.ts";
import type { ToolDefinition } from "./tools.ts";

export const TOOLSETS_HEADER = "x-mcp-toolsets";
export const READONLY_HEADER = "x-mcp-readonly";

export interface ToolSelection {
  /** The chosen toolsets; undefined: all of them. */
  toolsets?: ReadonlySet<string>;
  /** Only tools that change nothing (readOnlyHint), and call_api limited to GET operations. */
  readOnly: boolean;
}

/** The toolsets of `definitions`, in the order their first tool appears. */
export function toolsetsOf(definitions: Readonly<Record<string, ToolDefinition>>): string[] {
  return [...new Set(Object.values(definitions).map((definition) => definition.toolset))];
}

/** The toolset names a header value or path segment lists, or undefined when it lists none. */
function namesIn(list: string | undefined): string[] | undefined {
  const names = list?.split(",").map((name) => name.trim().toLowerCase()).filter((name) => name !== "");
  return names?.length ? names : undefined;
}

function readOnlyHeader(value: string | undefined): boolean {
  const normalized = value?.trim().toLowerCase();
  if (normalized === undefined || normalized === "" || normalized === "false") return false;
  if (normalized === "true") return true;
  throw new ApiError(400, "validation_failed", "X-MCP-Readonly is true or false.", { header: "X-MCP-Readonly", value: value!.slice(0, 40) });
}

/**
 * The client's choice, from its headers and the path it posted to. Each source that names toolsets
 * narrows the choice (a tool is offered when every list that was given names its toolset); read-only
 * when either source says so. An unknown toolset name is a 400 that lists the valid ones.
 */
export function selectionOf(
  definitions: Readonly<Record<string, ToolDefinition>>,
  request: { header(name: string): string | undefined; pathToolsets?: string; pathReadOnly: boolean },
): ToolSelection {
  const valid = toolsetsOf(definitions);
  const lists = [namesIn(request.header(TOOLSETS_HEADER)), namesIn(request.pathToolsets)].filter((names) => names !== undefined);
  const unknown = [...new Set(lists.flat().filter((name) => !valid.includes(name)))];
  if (unknown.length) {
    throw new ApiError(400, "unknown_toolset", `No toolset ${unknown.map((name) => JSON.stringify(name.slice(0, 40))).join(", ")}. Toolsets: ${valid.join(", ")}.`, {
      unknown: unknown.map((name) => name.slice(0, 40)).slice(0, 20),
      toolsets: valid,
    });
  }
  const toolsets = lists.length ? new Set(valid.filter((name) => lists.every((names) => names.includes(name)))) : undefined;
  return { toolsets, readOnly: request.pathReadOnly || readOnlyHeader(request.header(READONLY_HEADER)) };
}

/** Each definition's read-only variant, made once: tools/list caches its listing per definition object. */
const readOnlyVariants = new WeakMap<ToolDefinition, ToolDefinition>();

/** How `definition` is offered under `selection`, or undefined when it is not. */
function offered(definition: ToolDefinition, selection: ToolSelection): ToolDefinition | undefined {
  if (selection.toolsets && !selection.toolsets.has(definition.toolset)) return undefined;
  if (!selection.readOnly) return definition;
  if (!definition.whenReadOnly) return definition.annotations.readOnlyHint ? definition : undefined;
  let variant = readOnlyVariants.get(definition);
  if (!variant) readOnlyVariants.set(definition, variant = { ...definition, ...definition.whenReadOnly });
  return variant;
}

/** The definitions `selection` offers, by name, in their order. */
export function selectTools<T extends Readonly<Record<string, ToolDefinition>>>(definitions: T, selection: ToolSelection): Partial<T> {
  const chosen: Record<string, ToolDefinition> = {};
  for (const [name, definition] of Object.entries(definitions)) {
    const tool = offered(definition, selection);
    if (tool) chosen[name] = tool;
  }
  return chosen as Partial<T>;
}

/** Why a tool of `definitions` is not offered under `selection`, for the refusal of a call; undefined when it is, or is no tool. */
export function whyNotSelected(definitions: Readonly<Record<string, ToolDefinition>>, selection: ToolSelection, name: string): string | undefined {
  const definition = Object.hasOwn(definitions, name) ? definitions[name] : undefined;
  if (!definition || offered(definition, selection)) return undefined;
  if (selection.toolsets && !selection.toolsets.has(definition.toolset)) {
    return `Tool ${name} is in the toolset ${definition.toolset}, which this connection did not choose (it chose ${[...selection.toolsets].join(", ")}).`;
  }
  return `Tool ${name} changes data, and this connection is read-only.`;
}
