// RecentEntries: what the database told the gateway lately (accepted keys, the users of session
// subs) is kept for its time to live, and past the cap the oldest entry is forgotten first.
import { describe, expect, it } from "vitest";
import { RecentEntries } from "../../supabase/functions/_shared/auth/recent-entries.ts";

describe("RecentEntries", () => {
  it("keeps an entry until its time to live has passed since it was last set", () => {
    const entries = new RecentEntries<string>(1_000, 10);
    entries.set("sub-1", "user-1", 0);
    expect(entries.get("sub-1", 999)).toBe("user-1");
    entries.set("sub-1", "user-1", 500);
    expect(entries.get("sub-1", 1_499)).toBe("user-1");
    expect(entries.get("sub-1", 1_500)).toBeUndefined();
    expect(entries.get("sub-1", 0), "an expired entry is gone").toBeUndefined();
  });

  it("forgets the entry set longest ago when over the cap", () => {
    const entries = new RecentEntries<number>(60_000, 2);
    entries.set("a", 1, 0);
    entries.set("b", 2, 1);
    entries.set("a", 1, 2); // set again: now the newest
    entries.set("c", 3, 3);
    expect([entries.get("a", 4), entries.get("b", 4), entries.get("c", 4)]).toEqual([1, undefined, 3]);
  });

  it("forgets an entry on demand", () => {
    const entries = new RecentEntries<string>();
    entries.set("key", "owner");
    entries.delete("key");
    expect(entries.get("key")).toBeUndefined();
  });
});
