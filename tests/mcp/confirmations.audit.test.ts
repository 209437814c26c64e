// Confirmation links without a browser: the link's page routes called as the page calls
// them (same origin, the sign-in session's cookie, the token in X-Confirmation-Token).
// - Each decision on a confirmation link (approve, refuse) is audited beside the tool calls and read
//   at GET /api/v3/me/mcp-audit: endpoint "confirmation", tool approve_<kind> / refuse_<kind>, the
//   link, its OAuth client and grant, the outcome with REST's code and status, the action redacted.
//   A decision whose record cannot be written stands: stored and answered, the failure logged.
// - An approval whose process died after claiming the link reads failed (approval_interrupted) once
//   its lease ran out, through get_confirmation_status and on the page; an approval answered after
//   its lease ran out does not overwrite that, and the person and the audit get its late result.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import postgres from "postgres";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { MCP_SCOPES, sha256 } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { createApiKey, linkAddress } from "../../scripts/lib/admin-operations.ts";
import { createOAuthTestContext, type IssuedTokens, issueTokens, type OAuthTestContext, RESOURCE } from "./oauth-fixtures.ts";

const CHAIN = 31337;
const VAULT = privateKeyToAccount(generatePrivateKey()).address;
const SPONSOR = privateKeyToAccount(generatePrivateKey()).address;
/** An API key's shape: the audit's redaction replaces it wherever it appears. */
const SECRET_CONNECTOR = `sk_abcdefgh_${"S".repeat(30)}`;

let ctx: OAuthTestContext;
let ada: IssuedTokens;
let adaId: string;
let key: string;
let assistant: Client;

type Outcome = { error?: { code: string; message: string }; result?: unknown; httpStatus?: number };
type Link = { confirmationId: string; url: string; status: string; action: Record<string, unknown>; outcome: Outcome | null; decidedAt: string | null };
type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: unknown[] };

async function ask(tool: string, args: Record<string, unknown>): Promise<Link & { token: string }> {
  const result = (await assistant.callTool({ name: tool, arguments: args })) as Result;
  if (result.isError) throw new Error(`${tool}: ${JSON.stringify(result.content)}`);
  const link = result.structuredContent as unknown as Link;
  return { ...link, token: new URLSearchParams(new URL(link.url).hash.slice(1)).get("token")! };
}
const status = async (id: string) =>
  ((await assistant.callTool({ name: "get_confirmation_status", arguments: { confirmationId: id } })) as Result).structuredContent as unknown as Link;

/** A POST of the link's page, in Ada's signed-in browser. */
async function page(step: string, link: { confirmationId: string; token: string }, body: unknown = {}) {
  const response = await ada.browser.request(`/confirm/${link.confirmationId}/${step}`, {
    method: "POST", headers: { "content-type": "application/json", "x-confirmation-token": link.token }, body: JSON.stringify(body),
  });
  return { status: response.status, requestId: response.headers.get("x-request-id"), body: await response.json() };
}

/** Ada's audit records of decisions on the link (read as an integrator reads them, with her API key). */
async function decisionsOn(confirmationId: string): Promise<Record<string, unknown>[]> {
  const response = await ctx.call("/api/v3/me/mcp-audit?endpoint=confirmation&take=100", { key });
  expect(response.status).toBe(200);
  return ((await response.json()).items as Record<string, unknown>[]).filter((item) => item.confirmationId === confirmationId);
}

const grantOf = async (confirmationId: string) =>
  (await ctx.owner<{ grant_id: string }[]>`select grant_id from mcp_confirmations.confirmations where id = ${confirmationId}`)[0]!.grant_id;

/** Approves a wallet link as the page does: the message prepared for the wallet, signed by it. */
async function approveWalletLink(link: { confirmationId: string; token: string }, account: ReturnType<typeof privateKeyToAccount>) {
  const prepared = await page("prepare", link, { address: account.address });
  expect(prepared.status).toBe(200);
  const message = prepared.body.message as string;
  return { message, approve: () => account.signMessage({ message }).then((signature) => page("approve", link, { message, signature })) };
}

beforeAll(async () => {
  ctx = await createOAuthTestContext({
    EVM_CHAINS: JSON.stringify([{ chainId: CHAIN, rpcUrl: "http://127.0.0.1:9/unused", confirmations: 1, sponsorshipVault: VAULT }]),
  });
  ada = await issueTokens(ctx, "ada@example.com", [...MCP_SCOPES]);
  adaId = (await ctx.owner<{ id: string }[]>`select id from core.users where email = 'ada@example.com'`)[0]!.id;
  key = (await createApiKey(ctx.adminDb, { userId: adaId, name: "audit reader", permissions: {} })).key;
  await linkAddress(ctx.adminDb, { userId: adaId, address: SPONSOR, chainId: String(CHAIN), connector: "injected" });
  assistant = new Client({ name: "confirmations-audit-test", version: "1.0.0" });
  await assistant.connect(new StreamableHTTPClientTransport(new URL(RESOURCE), {
    fetch: ctx.fetch, requestInit: { headers: { authorization: `Bearer ${ada.access_token}` } },
  }));
});
afterAll(async () => {
  await assistant?.close();
  await ctx?.close();
});

describe("decisions on confirmation links are audited", () => {
  it("a refusal: endpoint confirmation, refuse_<kind>, the link, its client and grant, the action redacted", async () => {
    const link = await ask("request_wallet_link", { chainId: CHAIN, connector: SECRET_CONNECTOR });
    const refused = await page("refuse", link);
    expect(refused).toMatchObject({ status: 200, body: { status: "refused" } });
    const [record, ...more] = await decisionsOn(link.confirmationId);
    expect(more).toEqual([]);
    expect(record).toMatchObject({
      endpoint: "confirmation", tool: "refuse_wallet_link", confirmationId: link.confirmationId,
      clientId: ada.clientId, grantId: await grantOf(link.confirmationId), apiKeyId: null, scopes: [],
      outcome: "ok", errorCode: null, httpStatus: null, requestId: refused.requestId,
      arguments: { chainId: CHAIN, address: null, connector: "[redacted]" },
    });
    expect(record!.durationMs).toEqual(expect.any(Number));
    expect(JSON.stringify(await ctx.owner`select arguments from mcp.tool_calls`)).not.toContain(SECRET_CONNECTOR);
    // A refusal that changes nothing (the link is decided already) is no decision: not recorded.
    expect(await page("refuse", link)).toMatchObject({ status: 409, body: { code: "confirmation_not_pending" } });
    expect(await decisionsOn(link.confirmationId)).toHaveLength(1);
  });

  it("an approval: approve_<kind>, ok with REST's status, or error with REST's code and status", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const link = await ask("request_wallet_link", { chainId: CHAIN, address: wallet.address });
    const approved = await (await approveWalletLink(link, wallet)).approve();
    expect(approved).toMatchObject({ status: 200, body: { status: "approved" } });
    expect(await decisionsOn(link.confirmationId)).toEqual([expect.objectContaining({
      endpoint: "confirmation", tool: "approve_wallet_link", clientId: ada.clientId, grantId: await grantOf(link.confirmationId),
      scopes: ["wallet:link"], outcome: "ok", errorCode: null, httpStatus: 201, requestId: approved.requestId,
      arguments: { chainId: CHAIN, address: wallet.address, connector: "injected" },
    })]);

    // REST refuses the action: the wallet is another person's.
    const taken = privateKeyToAccount(generatePrivateKey());
    const bob = await ctx.userWithKey();
    await linkAddress(ctx.adminDb, { userId: bob.id, address: taken.address, chainId: String(CHAIN), connector: "injected" });
    const refused = await ask("request_wallet_link", { chainId: CHAIN, address: taken.address });
    const failed = await (await approveWalletLink(refused, taken)).approve();
    expect(failed).toMatchObject({ status: 200, body: { status: "failed", outcome: { error: { code: "address_already_linked" }, httpStatus: 409 } } });
    expect(await decisionsOn(refused.confirmationId)).toEqual([expect.objectContaining({
      tool: "approve_wallet_link", outcome: "error", errorCode: "address_already_linked", httpStatus: 409, requestId: failed.requestId,
    })]);
  });

  it("a decision whose record cannot be written stands: stored, answered, and the failure only logged", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const link = await ask("request_wallet_link", { chainId: CHAIN, address: wallet.address });
    const { approve } = await approveWalletLink(link, wallet);
    const writer = "mcp_confirmations.record_decision(text, bytea, text, jsonb, text, text, integer, integer, text, text[])";
    await ctx.owner.unsafe(`revoke execute on function ${writer} from authenticated`);
    try {
      expect(await approve()).toMatchObject({ status: 200, body: { status: "approved", outcome: { result: { address: wallet.address } } } });
    } finally {
      await ctx.owner.unsafe(`grant execute on function ${writer} to authenticated`);
    }
    expect(await status(link.confirmationId)).toMatchObject({ status: "approved", outcome: { result: { address: wallet.address } } });
    expect(await decisionsOn(link.confirmationId)).toEqual([]);
  });
});

describe("an approval outliving its lease", () => {
  it("a claim whose process died reads failed, approval_interrupted, once its lease ran out", async () => {
    const link = await ask("request_sponsored_deposit", { walletAddress: SPONSOR, chainId: CHAIN, amountWei: "1000" });
    // The page's approval claims the link (begin_approval as Ada), then its process dies.
    await ctx.owner.begin(async (tx) => {
      await tx`select set_config('request.jwt.claims', ${JSON.stringify({ role: "authenticated", app_user_id: adaId })}, true)`;
      await tx`select * from mcp_confirmations.begin_approval(${link.confirmationId}, ${sha256(link.token)})`;
    });
    expect(await status(link.confirmationId)).toMatchObject({ status: "approving", outcome: null, decidedAt: null });

    // Time passes: the claim began 3 minutes ago (the lease).
    await ctx.owner`update mcp_confirmations.confirmations set claimed_at = now() - interval '3 minutes' where id = ${link.confirmationId}`;
    const polled = await status(link.confirmationId);
    expect(polled).toMatchObject({ status: "failed", outcome: { error: { code: "approval_interrupted" } } });
    expect(polled.outcome!.error!.message).toMatch(/deposit transaction may have been sent.*deposits\/record.*new link/);
    expect(polled.decidedAt).not.toBeNull();
    const viewed = await page("view", link);
    expect(viewed).toMatchObject({ status: 200, body: { status: "failed", outcome: polled.outcome } });
    expect(await page("refuse", link)).toMatchObject({ status: 409, body: { code: "confirmation_not_pending", details: { status: "failed" } } });
  });

  it("an approval answered after its lease ran out leaves the link failed; the person and the audit get the late result", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const link = await ask("request_wallet_link", { chainId: CHAIN, address: wallet.address });
    const { message, approve } = await approveWalletLink(link, wallet);
    const nonce = /\nNonce: (\S+)/.exec(message)![1]!;
    // The REST link route waits for the SIWE nonce's row, held here, while the lease runs out.
    const holder = postgres(ctx.url, { max: 1, onnotice: () => {} });
    const held = await holder.reserve();
    let answered: Awaited<ReturnType<typeof page>>;
    try {
      await held`begin`;
      await held`select from core.siwe_nonces where nonce = ${nonce} for update`;
      const approving = approve();
      await expect.poll(async () => (await status(link.confirmationId)).status).toBe("approving");
      await ctx.owner`update mcp_confirmations.confirmations set claimed_at = now() - interval '4 minutes' where id = ${link.confirmationId}`;
      expect((await status(link.confirmationId)).status).toBe("failed");
      await held`commit`;
      answered = await approving;
    } finally {
      held.release();
      await holder.end();
    }

    // The action ran (the wallet is linked) but the link stays as it was shown: failed, interrupted.
    const wallets = ((await assistant.callTool({ name: "list_my_wallets", arguments: {} })) as Result).structuredContent as { items: { address: string }[] };
    expect(wallets.items.map((w) => w.address)).toContain(wallet.address);
    const polled = await status(link.confirmationId);
    expect(polled).toMatchObject({ status: "failed", outcome: { error: { code: "approval_interrupted" } } });
    expect(polled.outcome!.result).toBeUndefined();
    expect(polled.outcome!.error!.message).toMatch(/wallet may have been linked/);
    // The person is told what happened late; the audit keeps it with REST's status.
    expect(answered).toMatchObject({ status: 200, body: { status: "failed", outcome: { error: { code: "approval_interrupted" }, httpStatus: 201 } } });
    expect((answered.body.outcome as Outcome).error!.message).toMatch(/answer came later: it was done/);
    expect(await decisionsOn(link.confirmationId)).toEqual([expect.objectContaining({
      tool: "approve_wallet_link", outcome: "error", errorCode: "approval_interrupted", httpStatus: 201, requestId: answered.requestId,
    })]);
  });
});
