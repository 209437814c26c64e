// MCP tools that make confirmation links (_shared/confirmations): nothing moves money, signs or links
// a wallet or changes sponsorship settings here; request_* tools create a link the person approves
// with their wallet in a browser (api/confirmations), and get_confirmation_status polls it.
import { z } from "zod";
import { define } from "../tools.ts";
import { CreatedAt, ObjectId, Timestamp } from "../../http/openapi.ts";
import { SaveSettingsSchema } from "../../sponsorship/schemas.ts";
import { CONFIRMATION_STATUSES, DepositAction, WalletLinkAction } from "../../confirmations/actions.ts";
import { ASKS, READ } from "./common.ts";
import * as confirmations from "../../confirmations/operations.ts";

export const ConfirmationSchema = z.object({
  confirmationId: ObjectId.describe("The link's id: get_confirmation_status takes it"),
  kind: z.enum(["wallet_link", "sponsorship_settings", "sponsored_deposit"])
    .describe("What the link does: link a wallet, replace a sponsor's settings, or deposit into a sponsor's balance"),
  status: z.enum(CONFIRMATION_STATUSES).describe("pending until the person decides; approving while their approval runs; approved, " +
    "refused, failed (approved, but the REST route refused the action: see outcome.error; or approval_interrupted: " +
    "the approval did not finish within its 3-minute lease) or expired"),
  action: z.record(z.string(), z.unknown()).describe("Exactly what the link does when approved"),
  actionHash: z.string().describe("0x SHA-256 of the canonical JSON of { kind, action }; the sponsor's signature names it"),
  outcome: z.unknown().nullable().describe("Once decided: { result } (the REST route's answer), { error, httpStatus }, or { refused: true }"),
  expiresAt: Timestamp.describe("The link can no longer be approved after this instant (UTC): 15 minutes after it was made"),
  createdAt: CreatedAt,
  decidedAt: Timestamp.nullable().describe("When the person approved or refused it (UTC); null while undecided"),
}).describe("A confirmation link and where it stands");
const CreatedConfirmationSchema = ConfirmationSchema.extend({
  url: z.string().describe("The single-use link to give the person (its secret is in the #fragment)"),
  instructions: z.string().describe("How to hand the link to the person and what they will see, in words for you"),
}).describe("A new confirmation link for the person to approve");

/** The confirmations tools, by name. */
export const confirmationTools = {
  request_wallet_link: define({
    name: "request_wallet_link", toolset: "identity", operation: confirmations.requestWalletLink, title: "Ask to link a wallet",
    description: "Does not link anything: creates a single-use link (15 minutes) for the person to open in a browser, where their " +
      "wallet signs a Sign-In with Ethereum message the service issues and the wallet is linked (POST /api/v3/me/crypto-addresses) " +
      "as them. Give them `url`; poll get_confirmation_status.",
    input: WalletLinkAction, output: CreatedConfirmationSchema, annotations: ASKS,
  }),
  request_sponsorship_settings_change: define({
    name: "request_sponsorship_settings_change", toolset: "sponsorship", operation: confirmations.requestSponsorshipSettingsChange, title: "Ask to change a sponsor's settings",
    description: "Does not change anything: creates a single-use link (15 minutes) showing the person every setting now and after; " +
      "they approve with a signature of the sponsor wallet over a message naming the action's hash, then the settings are replaced " +
      "(POST /api/v3/sponsorship/settings) as them. The arguments are that route's body (fields left out return to their defaults). " +
      "Give them `url`; poll get_confirmation_status.",
    input: SaveSettingsSchema, output: CreatedConfirmationSchema, annotations: ASKS,
  }),
  request_sponsored_deposit: define({
    name: "request_sponsored_deposit", toolset: "sponsorship", operation: confirmations.requestSponsoredDeposit, title: "Ask to deposit into a sponsor's balance",
    description: "Does not move money: creates a single-use link (15 minutes) showing the person the amount, their sponsor wallet and the " +
      "chain's sponsorship vault; approving makes their wallet send the deposit transaction, which the service then verifies on-chain " +
      "and records (POST /api/v3/sponsorship/deposits/record) as them. Give them `url`; poll get_confirmation_status.",
    input: DepositAction, output: CreatedConfirmationSchema, annotations: { ...ASKS, openWorldHint: true },
  }),
  get_confirmation_status: define({
    name: "get_confirmation_status", toolset: "identity", operation: confirmations.getConfirmationStatus, title: "Status of a confirmation link",
    description: "pending, approving, approved, refused, failed or expired, with the outcome once decided. Only links this client made for you. " +
      "Listed with wallet:link or sponsorship:write.",
    input: z.object({ confirmationId: ObjectId }).strict(), output: ConfirmationSchema, annotations: READ,
  }),
};

/** The tools that only make a confirmation link (nothing changes until the person approves it). */
export const CONFIRMATION_LINK_TOOLS: ReadonlySet<string> = new Set(
  Object.values(confirmationTools).filter((tool) => tool.output === CreatedConfirmationSchema).map((tool) => tool.name),
);
