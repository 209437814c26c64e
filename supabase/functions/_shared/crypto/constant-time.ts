// Comparing a presented secret with the ones the service holds, in time that does not depend on
// where they differ or which one matched (shared secrets of functions and providers).
import { timingSafeEqual } from "node:crypto";
import { sha256 } from "./sha256.ts";

/**
 * True when `presented` equals one of `accepted` (several during a rotation). Both sides are hashed
 * first, so lengths leak nothing either, and every accepted secret is compared, match or not.
 */
export function matchesSecret(presented: string | undefined, accepted: readonly string[]): boolean {
  if (presented === undefined) return false;
  const given = sha256(presented);
  let matched = false;
  for (const secret of accepted) matched = timingSafeEqual(given, sha256(secret)) || matched;
  return matched;
}
