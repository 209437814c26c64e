// OpenAPI responses shared by the routes that read a chain.
import { ErrorBodySchema } from "../http/errors.ts";

/** The 502 of routes that read a chain: its RPC failed, not the request. */
export const chainUnavailableResponse = {
  502: {
    description: "The chain's RPC endpoint did not answer (code `chain_unavailable`); try again",
    content: { "application/json": { schema: ErrorBodySchema } },
  },
};
