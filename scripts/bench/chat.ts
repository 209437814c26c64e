// The chat figure: the time from a chat-with-assistant request to the first byte of its Server-Sent
// Events, at 10 connections, with the OpenAI stand-in answering at once from a process of its own
// (its HTTP round trip is included). Measured twice:
//   * the function's own time: its fetch handler called in this process, as a platform (Supabase's
//     edge runtime, npm start's gateway) calls it once it has read the request;
//   * as deployed: through the gateway (npm start's, Deno.serve alone) in a process of its own, over
//     HTTP from this one, so the platform's HTTP work and this client's share the machine too.
// Each request is a new message in the person's room, so the model is asked every time, and the room
// grows by two messages an answer.
import postgres from "postgres";
import { SignJWT } from "jose";
import { createChatWithAssistantApp } from "../../supabase/functions/chat-with-assistant/app.ts";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { startGatewayProcess } from "../lib/gateway-process.ts";
import { gatewayUrl } from "../lib/local-postgres.ts";
import { benchUserDatabase } from "./identity.ts";
import { startStandInProcess } from "./stand-in-process.ts";
import { AS_DEPLOYED } from "./wrk.ts";

const CONNECTIONS = 10;
const JWT_SECRET = "bench-jwt-secret-that-is-long-enough-0123456789";
const STAND_IN_API_KEY = "sk-bench-stand-in";
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

type Send = (request: Request) => Promise<Response>;

export async function benchChat(options: { seconds: number }) {
  const { url, userId } = await benchUserDatabase({}, "bench_chat");
  const owner = postgres(url, { max: 1, onnotice: () => {} });
  const [user] = await owner<{ auth_user_id: string }[]>`select auth_user_id::text from core.users where id = ${userId}`;
  const standIn = await startStandInProcess("openai-stand-in-process.ts", { OPENAI_STAND_IN_API_KEY: STAND_IN_API_KEY });
  const env = {
    DATABASE_URL: url, JWT_SECRET, ASSISTANT_API_KEY: STAND_IN_API_KEY, ASSISTANT_BASE_URL: `${standIn.url}/v1`,
    CHAT_WITH_ASSISTANT_RATE_LIMIT_PER_MINUTE: "100000",
  };
  const token = await new SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(user!.auth_user_id)
    .setAudience("authenticated").setIssuedAt().setExpirationTime("1h").sign(new TextEncoder().encode(JWT_SECRET));

  let sent = 0;
  const ask = async (send: Send, url: string): Promise<number> => {
    const started = performance.now();
    const response = await send(new Request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ roomId: "bench-room", messageId: `bench-${Date.now()}-${++sent}`, message: "What is on tonight?" }),
    }));
    if (response.status !== 200 || !response.body) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
    const reader = response.body.getReader();
    await reader.read();
    const firstByteMs = performance.now() - started;
    while (!(await reader.read()).done) { /* the rest of the answer */ }
    return firstByteMs;
  };
  const measure = async (label: string, send: Send, url: string) => {
    for (let i = 0; i < 20; i++) await ask(send, url); // warm-up
    // The statistics a running service's autovacuum keeps (this database is a minute old).
    await owner`analyze chat.messages, chat.rooms`;
    const times: number[] = [];
    const until = Date.now() + options.seconds * 1000;
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) times.push(await ask(send, url));
    }));
    times.sort((a, b) => a - b);
    const figures = { answers: times.length, p50Ms: Number(percentile(times, 0.5).toFixed(2)), p99Ms: Number(percentile(times, 0.99).toFixed(2)) };
    console.log(`chat-with-assistant, ${CONNECTIONS} connections, ${label}: first SSE byte p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms (${figures.answers} answers)`);
    return figures;
  };

  try {
    const config = loadConfig({ ...env, GATEWAY_DATABASE_URL: gatewayUrl(url), APP_ENV: "test" });
    const db = new Database(connect(config.GATEWAY_DATABASE_URL, { max: config.DB_POOL_MAX, prepare: true }));
    const app = createChatWithAssistantApp({ config, db });
    const functionOwn = await measure("the function's own", (request) => Promise.resolve(app.fetch(request)), "http://function/chat-with-assistant")
      .finally(() => db.close());
    const gateway = await startGatewayProcess({ ...AS_DEPLOYED, ...env });
    const deployed = await measure("as deployed (HTTP, gateway process)", fetch, `${gateway.url}/functions/v1/chat-with-assistant`)
      .finally(() => gateway.stop());
    return { functionOwn, deployed };
  } finally {
    await owner.end();
    await standIn.close();
  }
}
