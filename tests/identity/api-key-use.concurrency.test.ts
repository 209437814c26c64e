// Recording a key's last use happens inside the request's transaction, at most once a minute. The
// request that records it holds the key's row until it commits; concurrent requests of the same key
// must skip that write (SKIP LOCKED), not queue behind it.
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { hashApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

it("a request whose key's last use is being recorded by another does not wait for it", async () => {
  const user = await t.userWithKey();
  const hash = hashApiKey(user.key);
  await t.owner`update core.api_keys set last_used_at = now() - interval '5 minutes' where id = ${user.keyId}`;

  const first = postgres(t.url, { max: 1, onnotice: () => {} });
  const second = postgres(t.url, { max: 1, onnotice: () => {} });
  try {
    const recording = await first.reserve();
    await recording`begin`;
    // The stale last use is written here, and the row stays locked until this transaction ends.
    await recording`select core.enter_api_key_scope(${hash}, '{}')`;

    // Were the write to wait for that lock, lock_timeout would fail this with 55P03.
    const [entered] = await second.begin(async (tx) => {
      await tx`set local lock_timeout = '200ms'`;
      return tx<{ user_id: string }[]>`select core.enter_api_key_scope(${hash}, '{}') as user_id`;
    });
    expect(entered!.user_id).toBe(user.id);

    await recording`commit`;
    recording.release();
    const [row] = await t.owner<{ recent: boolean }[]>`
      select last_used_at > now() - interval '1 minute' as recent from core.api_keys where id = ${user.keyId}`;
    expect(row!.recent).toBe(true);
  } finally {
    await first.end();
    await second.end();
  }
});
