// The sponsored-transaction provider's shared secret (SPEC 5.8), checked before the body is read.
import { createMiddleware } from "hono/factory";
import { matchesSecret } from "../crypto/constant-time.ts";
import type { AppEnv } from "../http/context.ts";
import { ApiError } from "../http/errors.ts";

export const VERIFIER_SECRET_HEADER = "x-service-provider-verifier-secret";

/**
 * The provider's shared secret, before the body is read: a caller without it costs a header
 * comparison. Two secrets are valid during a rotation (SPONSORSHIP_VERIFIER_SECRETS).
 */
export const requireVerifierSecret = createMiddleware<AppEnv>(async (c, next) => {
  const secrets = c.get("config").SPONSORSHIP_VERIFIER_SECRETS;
  if (secrets.length === 0) {
    throw new ApiError(503, "provider_verifier_not_configured", "SPONSORSHIP_VERIFIER_SECRETS is not set, so no verifier call is accepted.");
  }
  if (!matchesSecret(c.req.header(VERIFIER_SECRET_HEADER), secrets)) {
    throw new ApiError(401, "invalid_verifier_secret", `A valid ${VERIFIER_SECRET_HEADER} header is required.`);
  }
  await next();
});

