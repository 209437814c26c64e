import type { Diagnostic } from "typescript";

export const SDK_ROOT: string;
export function buildClassicScript(): { script: string; version: string; diagnostics: readonly Diagnostic[] };
