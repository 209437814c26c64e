// TEMPORARY, deleted once every domain has its operations: an operation that runs a REST route
// in-process as the caller, for tools whose domain is not converted yet.
import { ApiError } from "../../_shared/http/errors.ts";
import { callRoute, type InProcessApp, type RouteCall } from "../../_shared/mcp/call-route.ts";
import { JsonText, type Operation } from "../../_shared/operations/operation.ts";

let app: InProcessApp | undefined;
export const useLegacyApp = (given: InProcessApp) => {
  app = given;
};

export function legacyApp(): InProcessApp {
  if (!app) throw new Error("legacy app not set");
  return app;
}

export function viaRoute<I>(name: string, call: (input: I) => RouteCall, declared: Pick<Operation, "scopes" | "anyScope" | "permission"> = {}): Operation<I> {
  return {
    name,
    ...declared,
    permission: undefined, // the route checks its own
    ownTransactions: true,
    async run(context, input) {
      if (!app) throw new Error("legacy app not set");
      const answer = await callRoute(app, { principal: context.principal }, call(input), { requestId: context.requestId });
      if (answer.status >= 400) {
        const body = answer.body as { code?: string; message?: string; details?: unknown };
        const retryAfter = answer.headers.get("retry-after");
        throw new ApiError(answer.status as never, body?.code ?? "request_failed", body?.message ?? "failed", body?.details, retryAfter ? { "Retry-After": retryAfter } : undefined);
      }
      return { status: answer.status as 200, body: answer.text ? new JsonText(answer.text) : undefined };
    },
  };
}
