// The chat figure, in process: the time from a chat-with-assistant request to the first byte of its
// Server-Sent Events, at 10 connections, with the OpenAI stand-in answering at once (in a process of
// its own would be cleaner; here its own handling is included, so the figure is an upper bound).
// Each request is a new message in the person's room, so the model is asked every time.
import postgres from "postgres";
import { SignJWT } from "jose";
import { createChatWithAssistantApp } from "../../supabase/functions/chat-with-assistant/app.ts";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { startOpenAIStandIn } from "../lib/openai-stand-in.ts";
import { gatewayUrl } from "../lib/local-postgres.ts";
import { benchUserDatabase } from "./identity.ts";

const CONNECTIONS = 10;
const JWT_SECRET = "bench-jwt-secret-that-is-long-enough-0123456789";
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

export async function benchChat(options: { seconds: number }) {
  const { url, userId } = await benchUserDatabase({}, "bench_chat");
  const owner = postgres(url, { max: 1, onnotice: () => {} });
  const [user] = await owner<{ auth_user_id: string }[]>`select auth_user_id::text from core.users where id = ${userId}`;
  await owner.end();
  const standIn = await startOpenAIStandIn();
  const config = loadConfig({
    GATEWAY_DATABASE_URL: gatewayUrl(url), APP_ENV: "test", JWT_SECRET, ASSISTANT_API_KEY: standIn.apiKey,
    ASSISTANT_BASE_URL: `${standIn.url}/v1`, CHAT_WITH_ASSISTANT_RATE_LIMIT_PER_MINUTE: "100000",
  });
  const db = new Database(connect(config.GATEWAY_DATABASE_URL, { max: config.DB_POOL_MAX, prepare: true }));
  const app = createChatWithAssistantApp({ config, db });
  const token = await new SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(user!.auth_user_id)
    .setAudience("authenticated").setIssuedAt().setExpirationTime("1h").sign(new TextEncoder().encode(JWT_SECRET));

  let sent = 0;
  const ask = async (): Promise<number> => {
    const started = performance.now();
    const response = await app.request("/chat-with-assistant", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ roomId: "bench-room", messageId: `bench-${Date.now()}-${++sent}`, message: "What is on tonight?" }),
    });
    if (response.status !== 200 || !response.body) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
    const reader = response.body.getReader();
    await reader.read();
    const firstByteMs = performance.now() - started;
    while (!(await reader.read()).done) { /* the rest of the answer */ }
    return firstByteMs;
  };

  try {
    for (let i = 0; i < 20; i++) await ask(); // warm-up
    const times: number[] = [];
    const until = Date.now() + options.seconds * 1000;
    await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) times.push(await ask());
    }));
    times.sort((a, b) => a - b);
    const figures = { answers: times.length, p50Ms: Number(percentile(times, 0.5).toFixed(2)), p99Ms: Number(percentile(times, 0.99).toFixed(2)) };
    console.log(`chat-with-assistant, ${CONNECTIONS} connections: first SSE byte p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms ` +
      `(${figures.answers} answers; the stand-in's own handling included)`);
    return figures;
  } finally {
    await db.close();
    await standIn.close();
  }
}
