// The chat-with-assistant function: the common rules (app-functions/app.ts), then the person's message
// as a turn of the assistant (_shared/chat/assistant.ts), its events written as Server-Sent Events
// (_shared/http/event-stream.ts). The assistant's tools are the public MCP surface's, which lives
// with the API and is handed in here.
import { chooseModel, chooseProvider, providerClient } from "../_shared/ai/provider.ts";
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import { answerTurn } from "../_shared/chat/assistant.ts";
import type { PublicToolSurface } from "../_shared/chat/assistant-tools.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { runsInCallTransaction } from "../_shared/mcp/tools.ts";
import { CONFIRMATION_LINK_TOOLS, isPublicTool, publicToolServer, publicTools } from "../_shared/mcp/public-server.ts";
import { chatRoute, originOf } from "../_shared/app-functions/chat-with-assistant.ts";
import { functionUrl } from "../_shared/http/public-urls.ts";
import { EventStream } from "../_shared/http/event-stream.ts";
import { runOperation } from "../_shared/operations/operation.ts";
import type { ChatStreamEvent, ChatStreamEvents } from "../_shared/chat/stream-events.ts";

const PUBLIC_TOOLS: PublicToolSurface = {
  server: publicToolServer,
  runsInCallTransaction: (name, args) => runsInCallTransaction(isPublicTool(name) ? publicTools[name] : undefined, args),
  linkTools: CONFIRMATION_LINK_TOOLS,
};

export function createChatWithAssistantApp(services: AppServices) {
  const { config } = services;
  const client = providerClient(config);
  const resource = functionUrl(config, chatRoute.path.slice(1));
  // missingProvider answers 503 without a client.
  const answerTurnOperation = client && answerTurn({ client, tools: PUBLIC_TOOLS, resource });
  return createFunctionApp(services, {
    route: chatRoute,
    ratePerMinute: () => config.CHAT_WITH_ASSISTANT_RATE_LIMIT_PER_MINUTE,
    missingProvider: () => client ? undefined
      : "No AI provider is configured for chat-with-assistant: set ASSISTANT_API_KEY (and ASSISTANT_BASE_URL for a provider other than OpenAI).",
    handle: async ({ body, context, signal }) => {
      chooseProvider(config, body.aiProvider);
      const image = body.imageData ? body.textContent : undefined;
      const stop = new AbortController();
      signal.addEventListener("abort", () => stop.abort(), { once: true });
      const { body: events } = await runOperation(answerTurnOperation!, context, {
        roomId: body.roomId,
        messageId: body.messageId,
        text: image ? body.message : (body.textContent ?? body.message),
        image,
        origin: originOf(body),
        model: chooseModel(config, body.model),
        useTools: body.useMCP === true,
        settlement: { approve: body.approve ?? [], decline: body.decline ?? [] },
        enableAssistant: body.enableAssistant === true,
        signal: stop.signal,
      });
      return eventStreamOf(events as AsyncIterable<ChatStreamEvent>, config.ASSISTANT_KEEPALIVE_MS, stop);
    },
  });
}

/** The events as a response of Server-Sent Events; `stop` when the client goes away. */
function eventStreamOf(events: AsyncIterable<ChatStreamEvent>, keepAliveMs: number, stop: AbortController): Response {
  const stream = new EventStream<ChatStreamEvents>({}, keepAliveMs);
  stream.clientGone.addEventListener("abort", () => stop.abort(), { once: true });
  void (async () => {
    for await (const event of events) stream.send(event.type, event.data);
    stream.close();
  })();
  return stream.response;
}
