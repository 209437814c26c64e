// Confirmation links, as the public MCP tools reach them. A tool that would link a wallet, change a
// sponsor's settings or move money creates a link instead: single-use, 15 minutes, bound to the
// person, their client and grant, and the action's hash (mcp_confirmations.create_confirmation).
// The person approves or refuses it on the link's page (api/confirmations), which then runs the
// action through the same operations as REST, as the person limited to the action's one scope.
import { getAddress } from "viem";
import { randomToken, sha256 } from "../auth/mcp-oauth.ts";
import type { Principal } from "../auth/principal.ts";
import { ApiError } from "../http/errors.ts";
import { type Answer, type OperationContext, operation, runOperation } from "../operations/operation.ts";
import { getBalance, getSettings, sponsorshipVaultOf } from "../sponsorship/operations.ts";
import { SponsorQuery } from "../sponsorship/schemas.ts";
import { actionHash, bindingOf, CONFIRMATION_SECONDS, type ConfirmationKind, hex, KINDS } from "./actions.ts";
import { apiUrl } from "../http/public-urls.ts";

const ID = /^[0-9a-f]{24}$/;
const NO_STORE = { "Cache-Control": "no-store" };

export interface StatusRow {
  id: string;
  kind: string;
  action: Record<string, unknown>;
  action_hash: Uint8Array;
  status: string;
  outcome: unknown;
  expires_at: Date;
  created_at: Date;
  decided_at: Date | null;
}

export function statusBody(row: StatusRow) {
  return {
    confirmationId: row.id,
    kind: row.kind,
    status: row.status,
    action: row.action,
    actionHash: hex(row.action_hash),
    outcome: row.outcome ?? null,
    expiresAt: row.expires_at.toISOString(),
    createdAt: row.created_at.toISOString(),
    decidedAt: row.decided_at?.toISOString() ?? null,
  };
}

export const notFound = () => new ApiError(404, "not_found", "No such confirmation link.");

/** Links are made and read for a person's OAuth grant only; any other caller finds none. */
function grantOf(principal: Principal): Extract<Principal, { kind: "oauth" }> {
  if (principal.kind !== "oauth") throw notFound();
  return principal;
}

/**
 * The sponsor wallet of a settings change or deposit as `context`'s person sees it, through
 * sponsorship's own reads (its balance for a deposit, else its settings): 404 sponsor_not_found
 * unless the wallet is theirs.
 */
export function sponsorState(context: OperationContext, person: Extract<Principal, { kind: "oauth" }>, kind: ConfirmationKind, action: Record<string, unknown>): Promise<Answer> {
  const sponsor = SponsorQuery.parse({ walletAddress: action.walletAddress, chainId: action.chainId });
  const reader = { ...context, principal: { ...person, scopes: ["sponsorship:read"] } };
  return kind === "sponsored_deposit" ? runOperation(getBalance, reader, sponsor) : runOperation(getSettings, reader, sponsor);
}

/** A tool's request for `kind`: the link, its secret (in the URL's fragment) and what to tell the person. */
function requestConfirmation(kind: ConfirmationKind) {
  return operation({
    name: `confirmations.request_${kind}`,
    scopes: [KINDS[kind].scope],
    async run(context, validated: Record<string, unknown>) {
      const person = grantOf(context.principal);
      const { config } = context;
      const action = JSON.parse(JSON.stringify(validated)) as Record<string, unknown>;
      // Where the money goes is part of the action (and of its hash): the chain's vault now.
      if (kind === "sponsored_deposit") action.vaultAddress = getAddress(sponsorshipVaultOf(config, Number(action.chainId)));
      if (kind !== "wallet_link") await sponsorState(context, person, kind, action);
      const token = randomToken("mcf_");
      const tokenHash = sha256(token);
      const hash = actionHash(kind, action);
      const expiresAt = new Date(Date.now() + CONFIRMATION_SECONDS * 1000);
      const binding = bindingOf(config, { userId: person.userId, clientId: person.clientId, grantId: person.grantId, kind, actionHash: hash, tokenHash, expiresAt });
      const [row] = await context.db.statement((tx) => tx<{ id: string; created_at: Date; expires_at: Date }[]>`
        select * from mcp_confirmations.create_confirmation(${person.clientId}, ${person.grantId}, ${kind}, ${tx.json(action as never)}::jsonb,
          ${hash}, ${binding}, ${tokenHash}, ${expiresAt})`);
      return {
        status: 201,
        headers: NO_STORE,
        body: {
          ...statusBody({ id: row!.id, kind, action, action_hash: hash, status: "pending", outcome: null, expires_at: row!.expires_at, created_at: row!.created_at, decided_at: null }),
          url: `${apiUrl(config, `/confirm/${row!.id}`)}#token=${token}`,
          instructions: `Give the person this link. They open it in a browser, see "${KINDS[kind].title}" with every detail, and approve it with ` +
            `their wallet or refuse. Nothing happens until then; poll get_confirmation_status. The link works once and expires at ${row!.expires_at.toISOString()}.`,
        },
      };
    },
  });
}

export const requestWalletLink = requestConfirmation("wallet_link");
export const requestSponsorshipSettingsChange = requestConfirmation("sponsorship_settings");
export const requestSponsoredDeposit = requestConfirmation("sponsored_deposit");

/** A link this client made for the person: any one of the scopes that make links lets it be polled. */
export const getConfirmationStatus = operation({
  name: "confirmations.status",
  scopes: ["wallet:link", "sponsorship:write"],
  anyScope: true,
  async run(context, { confirmationId }: { confirmationId: string }) {
    grantOf(context.principal);
    if (!ID.test(confirmationId)) throw notFound();
    const [row] = await context.db.statement((tx) => tx<StatusRow[]>`select * from mcp_confirmations.confirmation_status(${confirmationId})`);
    if (!row) throw notFound();
    return { status: 200, headers: NO_STORE, body: statusBody(row) };
  },
});
