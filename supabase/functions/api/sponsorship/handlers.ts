// REST for the sponsored-gas ledger: each route runs its operation (_shared/sponsorship/operations.ts)
// as the caller.
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as sponsorship from "../../_shared/sponsorship/operations.ts";
import * as routes from "./routes.ts";

export const sponsorshipEndpoints = [
  endpoint(routes.getBalance, sponsorship.getBalance, ({ query }) => query),
  endpoint(routes.listUsage, sponsorship.listUsage, ({ query }) => query),
  endpoint(routes.listDeposits, sponsorship.listDeposits, ({ query }) => query),
  endpoint(routes.getSettings, sponsorship.getSettings, ({ query }) => query),
  endpoint(routes.saveSettings, sponsorship.saveSettings, ({ json }) => json),
  endpoint(routes.check, sponsorship.checkEligibility, ({ json }) => json),
  endpoint(routes.providerVerify, sponsorship.verifyForProvider, ({ json }) => json),
  endpoint(routes.complete, sponsorship.completeSponsored, ({ json }) => json),
  endpoint(routes.cancel, sponsorship.cancelReservation, ({ json }) => json),
  endpoint(routes.recordDeposit, sponsorship.recordDeposit, ({ json }) => json),
  endpoint(routes.recordUsage, sponsorship.recordUsage, ({ json }) => json),
];
