import { describe, expect, it } from "vitest";
import { matchesSecret } from "../../supabase/functions/_shared/crypto/constant-time.ts";

describe("matchesSecret", () => {
  it("accepts exactly one of the accepted secrets", () => {
    expect(matchesSecret("current", ["current", "previous"])).toBe(true);
    expect(matchesSecret("previous", ["current", "previous"])).toBe(true);
    expect(matchesSecret("curren", ["current", "previous"])).toBe(false);
    expect(matchesSecret("current ", ["current"])).toBe(false);
    expect(matchesSecret("", ["current"])).toBe(false);
    expect(matchesSecret(undefined, ["current"])).toBe(false);
    expect(matchesSecret("current", [])).toBe(false);
  });
});
