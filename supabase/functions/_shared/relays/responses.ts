// What every relay route documents: its 422, and how a relay goes.
import { ErrorBodySchema } from "../http/errors.ts";

export const wouldRevertResponse = {
  422: { description: "The call reverts when the relayer sends it (code `relay_would_revert`): nothing signed nor held", content: { "application/json": { schema: ErrorBodySchema } } },
};

/**
 * How every relay goes, for a route's description: `whoMayPay` is the hold's own refusal (who may
 * spend the sponsor's money), `statusRead` where the relay's progress is read.
 */
export const relayFlow = (whoMayPay: string, statusRead: string) =>
  "Flow: the call is simulated from the relayer (422 `relay_would_revert`); the sponsor's rules are checked and the cost held " +
  "(sponsorship check: 409 with the reason as code: `operation_not_enabled`, `target_not_allowed`, `insufficient_balance`, ...; " +
  `404 \`sponsor_not_found\`; ${whoMayPay}; 429 \`rate_limited\`); the relayer signs it with its next nonce and the signed ` +
  "transaction is recorded before it is broadcast. Answers 202 once broadcast, without waiting for mining: read the status " +
  `with ${statusRead}. When mined, gasUsed × effectiveGasPrice is charged once against the actor (usage mode ` +
  "`relayed`) and the rest of the hold released. A transaction not mined in time is replaced (same nonce, fees +12.5 % or " +
  "more, within the hold). Without a configured relayer: 503 `relayer_not_configured`; a relayer that cannot sign or pay gas: 503 `relayer_unavailable`.";
