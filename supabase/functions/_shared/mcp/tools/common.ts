// What the per-domain MCP tool catalogs share: the annotation presets and a few small schemas.
import { z } from "zod";
import type { ToolAnnotations } from "../tools.ts";

export const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const ADD: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const REPLACE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
export const DELETE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
/** Creates a confirmation link only: nothing changes until the person approves it in their browser. */
export const ASKS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const onChain = (annotations: ToolAnnotations): ToolAnnotations => ({ ...annotations, openWorldHint: true });

export const Deleted = z.object({}).describe("Empty: the REST route answers 204 No Content");
export const Hex = z.string().regex(/^0x([0-9a-fA-F]{2})*$/).describe("0x and an even number of hex digits");
