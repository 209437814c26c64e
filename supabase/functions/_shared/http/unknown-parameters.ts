import type { z } from "@hono/zod-openapi";

/** A query parameter that looks plausible but is not ours: its error code and a message saying what to do. */
export interface RefusedParameter {
  code: string;
  message: string;
}

/**
 * Adds a 400 issue for every query parameter not in `known`: `unknown_parameter`, or the code and
 * message `refused` gives it. For a `.catchall(z.unknown()).superRefine(...)` query schema.
 */
export function refuseUnknownParameters(
  query: unknown,
  known: Record<string, unknown>,
  refused: Record<string, RefusedParameter>,
  ctx: z.RefinementCtx,
): void {
  if (typeof query !== "object" || query === null) return;
  for (const key of Object.keys(query)) {
    if (key in known) continue;
    const refusal = refused[key];
    ctx.addIssue({
      code: "custom",
      path: [key],
      message: refusal?.message ?? `unknown parameter \`${key}\``,
      params: { code: refusal?.code ?? "unknown_parameter" },
    });
  }
}
