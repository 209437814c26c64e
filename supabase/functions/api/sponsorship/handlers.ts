// REST for the sponsored-gas ledger: each route runs its operation (_shared/sponsorship/operations.ts)
// as the caller.
import { endpoint, routerOf } from "../../_shared/http/endpoint.ts";
import * as sponsorship from "../../_shared/sponsorship/operations.ts";
import * as routes from "./routes.ts";
import { VERIFIER_SECRET_HEADER } from "./verifier-secret.ts";

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

export const sponsorshipRouter = routerOf(sponsorshipEndpoints);

sponsorshipRouter.openAPIRegistry.registerComponent("securitySchemes", "SessionAuth", {
  type: "http",
  scheme: "bearer",
  bearerFormat: "JWT",
  description: "The check-in app's session token (Authorization: Bearer <SESSION_TOKEN>), as an alternative to x-api-key where SPEC 5.8 allows the session.",
});
sponsorshipRouter.openAPIRegistry.registerComponent("securitySchemes", "ProviderVerifierSecret", {
  type: "apiKey",
  in: "header",
  name: VERIFIER_SECRET_HEADER,
  description: "The shared secret configured at the sponsored-transaction provider (SPONSORSHIP_VERIFIER_SECRETS).",
});
