// postgres.js 3.4.9 has faults that surface where no caller can catch them when a connection dies
// mid-write: a throw from a setImmediate callback (a buffered write for a socket already closed)
// and rejections nobody awaits (its start-up catalog query). Under Deno either ends the process.
// node_modules gets the fix itself (patches/postgres+3.4.9.patch, applied at install); a deployed
// function resolves the published package from its deno.json, so there these listeners keep the
// process serving. Only those faults, each logged; anything else still ends the process.
import { isDatabaseUnavailable } from "./availability.ts";

interface GlobalEvents {
  addEventListener?(type: "error", listener: (event: ErrorEvent) => void): void;
  addEventListener?(type: "unhandledrejection", listener: (event: PromiseRejectionEvent) => void): void;
}

let installed = false;

/** The driver's write on a connection whose socket has closed (its `nextWrite`). */
function isWriteOnClosedSocket(error: unknown): boolean {
  return error instanceof TypeError && /\bnextWrite\b/.test(error.stack ?? "") && /postgres/.test(error.stack ?? "");
}

/** Installs the listeners once, where the runtime has them (Deno and Supabase's Edge Runtime; not Node). */
export function surviveDriverFaults(): void {
  const events = globalThis as GlobalEvents;
  if (installed || typeof events.addEventListener !== "function") return;
  installed = true;
  events.addEventListener("error", (event) => {
    if (!isWriteOnClosedSocket(event.error)) return;
    event.preventDefault();
    console.error("[db] postgres.js wrote to a connection that had closed; the process goes on:", (event.error as Error).message);
  });
  events.addEventListener("unhandledrejection", (event) => {
    if (!isDatabaseUnavailable(event.reason)) return;
    event.preventDefault();
    console.error("[db] postgres.js: a lost connection failed a statement nobody awaited; the process goes on:", (event.reason as Error).message);
  });
}
