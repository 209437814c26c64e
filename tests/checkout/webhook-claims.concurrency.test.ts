// The webhook dispatcher may run in several replicas: checkout.claim_webhook_deliveries (as
// service_jobs) claims with FOR UPDATE SKIP LOCKED, so a second dispatcher neither waits for the
// rows a first one is claiming nor takes them.
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

it("a second dispatcher skips the rows a first one holds, without waiting", async () => {
  const user = await t.userWithKey();
  // Three completed checkouts with a due delivery each, arranged as the owner.
  await t.owner`
    with c as (
      insert into checkout.collections (owner_id, chain_id, address, pricing, token_decimals, verified_owner_address)
      values (${user.id}, 31337, '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'dynamic', 18,
              '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
      returning id
    ), s as (
      insert into checkout.sessions (owner_id, collection_id, external_order_id, request_fingerprint, request, price,
                                     client_secret_hash, client_secret_ciphertext, status, expires_at, tx_hash, completed_at)
      select ${user.id}, c.id, 'order-' || n, sha256(n::text::bytea), '{"webhookUrl": "https://store.example/hook"}', 1,
             sha256(('secret' || n)::bytea), '\\x00', 'COMPLETED', now() + interval '1 hour',
             '0x' || lpad(to_hex(n), 64, '0'), now()
      from c, generate_series(1, 3) n
      returning id, owner_id
    )
    insert into checkout.webhook_deliveries (event_id, session_id, owner_id, webhook_url, payload, next_attempt_at)
    select 'checkout-completed-' || s.id, s.id, s.owner_id, 'https://store.example/hook', '{}', now() - interval '1 second'
    from s`;

  const first = postgres(t.config.GATEWAY_DATABASE_URL, { max: 1, onnotice: () => {} });
  const second = postgres(t.config.GATEWAY_DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    const holding = await first.reserve();
    await holding`begin`;
    await holding`set local role service_jobs`;
    const firstClaim = await holding<{ delivery_id: string }[]>`select delivery_id from checkout.claim_webhook_deliveries(1)`;
    expect(firstClaim).toHaveLength(1);

    // Were the claim to wait for the first dispatcher's row lock, lock_timeout would fail it (55P03).
    const secondClaim = await second.begin(async (tx) => {
      await tx`set local role service_jobs`;
      await tx`set local lock_timeout = '200ms'`;
      return tx<{ delivery_id: string }[]>`select delivery_id from checkout.claim_webhook_deliveries(10)`;
    });
    expect(secondClaim).toHaveLength(2);
    expect(secondClaim.map((r) => r.delivery_id)).not.toContain(firstClaim[0]!.delivery_id);

    await holding`commit`;
    holding.release();
    // Both claims committed: nothing is left until a lease ends.
    const third = await second.begin(async (tx) => {
      await tx`set local role service_jobs`;
      return tx`select delivery_id from checkout.claim_webhook_deliveries(10)`;
    });
    expect(third).toHaveLength(0);
  } finally {
    await first.end();
    await second.end();
  }
});
