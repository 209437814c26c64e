// What the chat-with-assistant suites share: the functions world with the OpenAI stand-in as the
// assistant's provider and the service's tools registered, the gateway served over real HTTP (the
// answer streamed as it is written, a client that closes its connection aborting the request, as
// Deno.serve does) with the local auth server, so supabase-js signs in by e-mail code, and a reader
// of Server-Sent Events.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { SupabaseClient } from "@supabase/supabase-js";
import { expect } from "vitest";
import { type MailSink, startMailSink } from "../../scripts/lib/mail-sink.ts";
import { type OpenAIStandIn, startOpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { codeMailedTo, newAddress, supabaseClient } from "../auth/local-auth-fixtures.ts";
import type { UserWithKey } from "../setup/test-context.ts";
import { type FunctionsWorld, startFunctionsWorld } from "./function-fixtures.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

export interface ChatEvent {
  type: string;
  data: any;
}

/** The events of a text/event-stream body: `event:` and `data:` lines, a blank line ending each. */
export async function* eventsOf(response: Response): AsyncGenerator<ChatEvent> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      let type = "message";
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) type = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length) yield { type, data: JSON.parse(data.join("\n")) };
    }
  }
}

export async function readEvents(response: Response): Promise<ChatEvent[]> {
  expect(response.status, response.status === 200 ? "" : await response.clone().text()).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
  const events: ChatEvent[] = [];
  for await (const event of eventsOf(response)) events.push(event);
  return events;
}

export const typesOf = (events: ChatEvent[]) => events.map((e) => e.type);
export const textOf = (events: ChatEvent[]) => events.filter((e) => e.type === "message.delta").map((e) => e.data.text).join("");
export const finalOf = (events: ChatEvent[]) => {
  expect(events.at(-1)?.type).toBe("done");
  return events.at(-1)!.data;
};

/** A fetch handler served on a port: the response streamed as written; a closed connection aborts the request. */
async function serveStreaming(handle: (request: Request) => Promise<Response>): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (req, res) => {
    const gone = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const body = chunks.length && req.method !== "GET" && req.method !== "HEAD" ? Buffer.concat(chunks) : undefined;
    const response = await handle(new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, body, signal: gone.signal }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    try {
      for await (const chunk of (response.body ?? []) as unknown as AsyncIterable<Uint8Array>) res.write(chunk);
    } catch {
      // The client went away mid-stream.
    }
    res.end();
  });
  await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ChatWorld {
  world: FunctionsWorld;
  standIn: OpenAIStandIn;
  /** A new person and their app session token. */
  person(): Promise<{ user: UserWithKey; token: string }>;
  /** supabase-js, as the app creates it, signed in by e-mail code as a new person. */
  signedInApp(): Promise<SupabaseClient>;
  /** POSTs to chat-with-assistant over HTTP. */
  chat(token: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<Response>;
  /** Sends the message and reads the whole answer. */
  ask(token: string, body: Record<string, unknown>): Promise<ChatEvent[]>;
  close(): Promise<void>;
}

let messages = 0;
/** A messageId no other test uses. */
export const newMessageId = () => `m-${process.pid}-${++messages}-${Math.random().toString(36).slice(2, 8)}`;

export async function startChatWorld(env: Record<string, string> = {}): Promise<ChatWorld> {
  const standIn = await startOpenAIStandIn();
  const mail: MailSink = await startMailSink();
  const world = await startFunctionsWorld({
    LOCAL_AUTH_ENABLED: "true",
    LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey(),
    SMTP_URL: mail.url,
    ASSISTANT_BASE_URL: `${standIn.url}/v1`,
    ASSISTANT_API_KEY: standIn.apiKey,
    ASSISTANT_MODELS: "gpt-4o-mini,gpt-4.1-mini",
    ASSISTANT_PROVIDERS: "openai,gateway",
    CHAT_WITH_ASSISTANT_RATE_LIMIT_PER_MINUTE: "1000",
    ...env,
  });
  const served = await serveStreaming((request) => world.fetch(request));
  const person = async () => {
    const user = await world.t.userWithKey();
    return { user, token: await world.sessionToken(user) };
  };
  // The service's tools are offered once registered, as discover-mcp-capabilities does.
  const { token } = await person();
  expect((await world.post("discover-mcp-capabilities", {}, token)).status).toBe(200);
  const chat: ChatWorld["chat"] = (token, body, signal) =>
    fetch(`${served.url}/functions/v1/chat-with-assistant`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
      signal,
    });
  return {
    world,
    standIn,
    person,
    async signedInApp() {
      const supabase = supabaseClient({ url: served.url });
      const email = newAddress("chat");
      const sent = mail.mails.length;
      expect((await supabase.auth.signInWithOtp({ email })).error).toBeNull();
      expect((await supabase.auth.verifyOtp({ email, token: await codeMailedTo(mail, email, sent), type: "email" })).error).toBeNull();
      return supabase;
    },
    chat,
    ask: async (token, body) => readEvents(await chat(token, body)),
    async close() {
      await served.close();
      await world.close();
      await standIn.close();
      await mail.close();
    },
  };
}
