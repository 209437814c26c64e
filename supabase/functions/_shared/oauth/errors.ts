// The authorization server's failures: an error for the OAuth client in the protocol's own terms
// (RFC 6749 5.2, RFC 7009, RFC 7591).

/** An error the token, revocation or registration endpoint answers as RFC 6749 5.2's body. */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 429,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = "OAuthError";
  }
}
