// The chat-with-assistant function: the common rules (app-functions/app.ts), then the person's message
// as a turn of the assistant (_shared/chat/assistant.ts), answered as Server-Sent Events. The
// assistant's tools are the public MCP surface's, which lives with the API and is handed in here.
import { chooseModel, chooseProvider, providerClient } from "../_shared/ai/provider.ts";
import { createFunctionApp } from "../_shared/app-functions/app.ts";
import { answerTurn } from "../_shared/chat/assistant.ts";
import type { PublicToolSurface } from "../_shared/chat/assistant-tools.ts";
import type { AppServices } from "../_shared/http/context.ts";
import { runsInCallTransaction } from "../_shared/mcp/tools.ts";
import { CONFIRMATION_LINK_TOOLS, isPublicTool, publicToolServer, publicTools } from "../_shared/mcp/public-server.ts";
import { chatRoute, originOf } from "../_shared/app-functions/chat-with-assistant.ts";
import { functionUrl } from "../_shared/http/public-urls.ts";

const PUBLIC_TOOLS: PublicToolSurface = {
  server: publicToolServer,
  runsInCallTransaction: (name, args) => runsInCallTransaction(isPublicTool(name) ? publicTools[name] : undefined, args),
  linkTools: CONFIRMATION_LINK_TOOLS,
};

export function createChatWithAssistantApp(services: AppServices) {
  const { config } = services;
  const client = providerClient(config);
  const resource = functionUrl(config, chatRoute.path.slice(1));
  return createFunctionApp(services, {
    route: chatRoute,
    ratePerMinute: () => config.CHAT_WITH_ASSISTANT_RATE_LIMIT_PER_MINUTE,
    missingProvider: () => client ? undefined
      : "No AI provider is configured for chat-with-assistant: set ASSISTANT_API_KEY (and ASSISTANT_BASE_URL for a provider other than OpenAI).",
    handle: async ({ body, context, signal }) => {
      chooseProvider(config, body.aiProvider);
      const image = body.imageData ? body.textContent : undefined;
      // missingProvider answered 503 without a client.
      return await answerTurn(
        { client: client!, tools: PUBLIC_TOOLS, resource },
        context,
        {
          roomId: body.roomId,
          messageId: body.messageId,
          text: image ? body.message : (body.textContent ?? body.message),
          image,
          origin: originOf(body),
          model: chooseModel(config, body.model),
          useTools: body.useMCP === true,
          settlement: { approve: body.approve ?? [], decline: body.decline ?? [] },
          enableAssistant: body.enableAssistant === true,
        },
        signal,
      );
    },
  });
}
