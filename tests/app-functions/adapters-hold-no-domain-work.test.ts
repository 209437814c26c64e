// The adapters of the chat and confirmation domains parse, call an operation and write its answer:
// the SQL lives in the operations (_shared/chat, _shared/confirmations), and the domain never builds
// an HTTP response (the chat turn yields events; chat-with-assistant writes them as SSE).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const FUNCTIONS = join(import.meta.dirname, "../../supabase/functions");
const ADAPTERS = [
  "rename-chat-for-event/app.ts",
  "transcribe-audio/app.ts",
  "chat-with-assistant/app.ts",
  "api/confirmations/handlers.ts",
];
const DOMAINS = ["_shared/chat", "_shared/confirmations"];

/** A statement sent to the database: a tagged template of `tx` or `sql`, or a call of statement()/query(). */
const SQL = /\b(tx|sql)(<[^`]*>)?`|\.(statement|query)\(/;
/** An HTTP response made or answered: a Response built, returned, or the SSE writer that builds one. */
const HTTP_RESPONSE = /new Response\(|\): Promise<Response>|http\/event-stream\.ts|\bc\.(json|body|html)\(/;

const source = (path: string) => readFileSync(join(FUNCTIONS, path), "utf8");

describe("adapters hold no domain work", () => {
  it.each(ADAPTERS)("%s sends no SQL of its own", (adapter) => {
    expect(source(adapter)).not.toMatch(SQL);
  });

  it.each(DOMAINS)("%s never builds an HTTP response", (domain) => {
    const files = readdirSync(join(FUNCTIONS, domain)).filter((name) => name.endsWith(".ts"));
    const answering = files.filter((name) => HTTP_RESPONSE.test(source(join(domain, name))));
    expect(answering).toEqual([]);
  });
});
