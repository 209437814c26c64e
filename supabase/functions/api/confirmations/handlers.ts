// The confirmation link's page: GET /confirm/{id} (the token is in the URL's fragment, which a
// browser never sends, so it stays out of logs and Referer headers), and the page's POSTs view,
// prepare, approve and refuse, each with the token in X-Confirmation-Token and the sign-in pages'
// session cookie. Not in the OpenAPI document. Each POST is answered only to the page's own origin
// and to a signed-in person, then runs the decision's operation (_shared/confirmations/decisions.ts)
// as that person. The links themselves are made and polled by the public MCP tools
// (_shared/confirmations/operations.ts).
import type { Context } from "hono";
import { browserSession, fromForeignOrigin } from "../../_shared/auth/mcp-oauth.ts";
import {
  approveConfirmation, decisionContext, isLinkShaped, type LinkRequest, prepareApproval, refuseConfirmation, viewConfirmation,
} from "../../_shared/confirmations/decisions.ts";
import { notFound } from "../../_shared/confirmations/operations.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { send } from "../../_shared/http/endpoint.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { type Operation, runOperation } from "../../_shared/operations/operation.ts";
import { confirmationPage, PAGE_HEADERS } from "./page.ts";

type C = Context<AppEnv>;

const TOKEN_HEADER = "x-confirmation-token";

/** The link and the person asking: same origin, a link's shape, signed in. */
async function linkRequest(c: C): Promise<LinkRequest> {
  if (fromForeignOrigin(c)) {
    throw new ApiError(403, "origin_not_allowed", "Confirmation links are answered only to their own page.");
  }
  const id = c.req.param("id") ?? "";
  const token = c.req.header(TOKEN_HEADER) ?? "";
  if (!isLinkShaped(id, token)) throw notFound();
  const person = await browserSession(c);
  if (!person) throw new ApiError(401, "sign_in_required", "Sign in to see and approve this link.");
  return { id, token, person: { userId: person.userId, email: person.email } };
}

/** The body as JSON, or undefined when it is not (the operation says so once the link is known). */
const jsonOrUndefined = (c: C): Promise<unknown> => c.req.json().catch(() => undefined);

/** A POST of the page: the link and person, the body when the decision takes one, the operation's answer. */
const decision = <I extends LinkRequest>(operation: Operation<I>, withBody: boolean) => async (c: C): Promise<Response> => {
  const request = await linkRequest(c);
  const input = (withBody ? { ...request, body: await jsonOrUndefined(c) } : request) as I;
  const context = decisionContext({ db: c.get("db"), config: c.get("config") }, request.person.userId, c.get("requestId"));
  return send(c, await runOperation(operation, context, input));
};

export const confirmationsRouter = createRouter();
confirmationsRouter.get("/confirm/:id", (c) => c.html(confirmationPage(), 200, PAGE_HEADERS));
confirmationsRouter.post("/confirm/:id/view", decision(viewConfirmation, false));
confirmationsRouter.post("/confirm/:id/prepare", decision(prepareApproval, true));
confirmationsRouter.post("/confirm/:id/approve", decision(approveConfirmation, true));
confirmationsRouter.post("/confirm/:id/refuse", decision(refuseConfirmation, false));
