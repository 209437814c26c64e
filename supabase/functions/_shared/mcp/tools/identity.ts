// MCP tools of the identity domain (_shared/identity): the caller's profile and linked wallets.
import { z } from "zod";
import { define } from "../tools.ts";
import { CryptoAddressListSchema, ProfileSchema } from "../../identity/schemas.ts";
import { READ } from "./common.ts";
import * as identity from "../../identity/operations.ts";

/** The identity tools, by name. */
export const identityTools = {
  get_me: define({
    name: "get_me", toolset: "identity", operation: identity.getMe, title: "Your profile", description: "The profile of the API key's owner (GET /api/v3/me).",
    input: z.object({}).strict(), output: ProfileSchema, annotations: READ,
  }),
  list_my_wallets: define({
    name: "list_my_wallets", toolset: "identity", operation: identity.listCryptoAddresses, title: "Your linked wallets", description: "The wallet addresses linked to your account (GET /api/v3/me/crypto-addresses).",
    input: z.object({}).strict(), output: CryptoAddressListSchema, annotations: READ,
  }),
};
