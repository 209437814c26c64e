// REST for identity: each route runs its operation (_shared/identity/operations.ts) as the caller.
import { endpoint } from "../../_shared/http/endpoint.ts";
import * as identity from "../../_shared/identity/operations.ts";
import * as routes from "./routes.ts";

export const identityEndpoints = [
  endpoint(routes.getSession, identity.getSession, () => ({})),
  endpoint(routes.getMe, identity.getMe, () => ({})),
  endpoint(routes.listCryptoAddresses, identity.listCryptoAddresses, () => ({})),
  endpoint(routes.createSiweNonce, identity.createSiweNonce, () => ({})),
  endpoint(routes.linkCryptoAddress, identity.linkCryptoAddress, ({ json }) => json),
  endpoint(routes.unlinkCryptoAddress, identity.unlinkCryptoAddress, ({ param, query }) => ({ address: param.address, chainId: query.chainId })),
];

