// Postgres guarantees the sponsorship money whatever the concurrency. Every change takes
// the sponsor row's lock first (FOR UPDATE), so 200 concurrent checks against a balance covering 50
// holds create exactly 50 and deny 150 (insufficient_balance, no error), and 20 concurrent
// completions of one reservation charge it once. Each call runs like the gateway's: its own
// transaction on the service's login role, as `authenticated` with the caller's claims.
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

const CHAIN = 31337;
const POOL = 50;
const CHECKS = 200;
const HOLDS = 50;
const MAX_COST = 1000n;
const TARGET = "0x00000000000000000000000000000000000000c1";
const VAULT = "0x00000000000000000000000000000000000000f1";

const address = (prefix: string, n: number) => `0x${prefix}${n.toString(16).padStart(40 - prefix.length, "0")}`;
const txHash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

let t: TestContext;
let gateway: postgres.Sql;

beforeAll(async () => {
  t = await createTestContext();
  gateway = postgres(t.config.GATEWAY_DATABASE_URL, { max: POOL, onnotice: () => {} });
});
afterAll(async () => {
  await gateway.end();
  await t.close();
});

interface DbError {
  code?: string;
  hint?: string;
  detail?: string;
  message?: string;
}

/** Runs `work` in a transaction of its own as the user, like a session request through the gateway. */
function asUser<T>(userId: string, work: (tx: postgres.TransactionSql) => Promise<T>): Promise<T> {
  return gateway.begin(async (tx) => {
    await tx`select set_config('role', 'authenticated', true),
                    set_config('request.jwt.claims', ${JSON.stringify({ role: "authenticated", app_user_id: userId })}, true)`;
    return work(tx);
  }) as Promise<T>;
}

/** Users, each with an address linked on the chain, arranged as the database owner. */
async function usersWithAddresses(prefix: string, count: number): Promise<{ id: string; address: string }[]> {
  const rows = await t.owner<{ id: string; address: string }[]>`
    with u as (
      insert into core.users (email)
      select ${prefix} || '-' || n || '@example.com' from generate_series(1, ${count}::int) n
      returning id, email
    )
    insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
    select u.id, '0x' || ${prefix} || lpad(to_hex(split_part(split_part(u.email, '-', 2), '@', 1)::int), ${40 - prefix.length}::int, '0'),
           ${String(CHAIN)}, 'injected', 'operator'
    from u
    returning user_id as id, address`;
  return rows.sort((a, b) => a.address.localeCompare(b.address));
}

/** A funded sponsor wallet with check-ins enabled, owned by a new user. */
async function fundedSponsor(prefix: string, amount: bigint) {
  const [owner] = await usersWithAddresses(prefix, 1);
  await asUser(owner!.id, async (tx) => {
    await tx`select sponsorship.record_deposit(${CHAIN}, ${owner!.address}, ${txHash(Number.parseInt(prefix, 16))},
                                               ${amount.toString()}, ${VAULT}, 1, 100)`;
    await tx`select sponsorship.save_settings(${CHAIN}, ${owner!.address}, '{check_in}', null, null, null, null,
                                              '{}', '{}', null, null)`;
  });
  return owner!;
}

/** The ledger invariant for every sponsor: rows whose amounts disagree with their entries. */
function ledgerMismatches() {
  return t.owner`
    select s.id
    from sponsorship.sponsors s
    cross join lateral (
      select coalesce(sum(amount) filter (where kind = 'deposit'), 0) as deposited,
             coalesce(sum(amount) filter (where kind = 'spend'), 0) as spent,
             coalesce(sum(amount) filter (where kind = 'hold'), 0)
               - coalesce(sum(amount) filter (where kind = 'release'), 0) as held
      from sponsorship.ledger_entries e where e.sponsor_id = s.id) l
    where (s.deposited, s.spent, s.held) is distinct from (l.deposited, l.spent, l.held)`;
}

describe("sponsorship under concurrency", () => {
  it("200 concurrent checks against a balance covering 50 holds: exactly 50 eligible, 150 insufficient_balance", async () => {
    const sponsor = await fundedSponsor("a1", MAX_COST * BigInt(HOLDS));
    // 200 attendees, each checking in for themselves: a rate-limit window each, so nothing but the
    // sponsor's lock orders their checks.
    const actors = await usersWithAddresses("b1", CHECKS);

    // Watches the sponsor's row while the checks run: it must never show an overdraft.
    let watching = true;
    let lowest: bigint | undefined;
    const watcher = (async () => {
      while (watching) {
        const [row] = await t.owner<{ available: string }[]>`
          select (deposited - spent - held)::text as available from sponsorship.sponsors where wallet_address = ${sponsor.address}`;
        const available = BigInt(row!.available);
        if (lowest === undefined || available < lowest) lowest = available;
      }
    })();

    const outcomes = await Promise.all(actors.map(async (actor, i) => {
      try {
        const [row] = await asUser(actor.id, (tx) => tx<{ eligible: boolean; reason: string; reservation_id: string | null }[]>`
          select eligible, reason, reservation_id
          from sponsorship.check(${CHAIN}, ${sponsor.address}, 'check_in', 'client-1', ${TARGET},
                                 ${"0x" + i.toString(16).padStart(8, "0")}, 0, ${actor.address}, null,
                                 ${MAX_COST.toString()}, 100)`);
        return row!;
      } catch (error) {
        const e = error as DbError;
        return { error: { code: e.code, hint: e.hint, message: e.message } };
      }
    }));
    watching = false;
    await watcher;

    expect(outcomes.filter((o) => "error" in o)).toEqual([]);
    const answers = outcomes as { eligible: boolean; reason: string; reservation_id: string | null }[];
    expect(answers.filter((a) => a.eligible && a.reason === "eligible" && a.reservation_id)).toHaveLength(HOLDS);
    expect(answers.filter((a) => !a.eligible && a.reason === "insufficient_balance")).toHaveLength(CHECKS - HOLDS);

    const [stored] = await t.owner<{ deposited: string; spent: string; held: string; reservations: string }[]>`
      select s.deposited::text, s.spent::text, s.held::text,
             (select count(*) from sponsorship.reservations r where r.sponsor_id = s.id and r.status = 'active')::text as reservations
      from sponsorship.sponsors s where s.wallet_address = ${sponsor.address}`;
    expect(stored).toEqual({
      deposited: (MAX_COST * BigInt(HOLDS)).toString(), spent: "0", held: (MAX_COST * BigInt(HOLDS)).toString(),
      reservations: String(HOLDS),
    });
    expect(lowest).toBeDefined();
    expect(lowest! >= 0n).toBe(true);
    expect(await ledgerMismatches()).toEqual([]);
    const balance = await asUser(sponsor.id, (tx) => tx<{ held: string; available: string }[]>`
      select held::text, available::text from sponsorship.balance(${CHAIN}, ${sponsor.address})`);
    expect(balance).toEqual([{ held: (MAX_COST * BigInt(HOLDS)).toString(), available: "0" }]);
  });

  it("20 concurrent completions of one reservation with one transaction: one usage row, every answer the same", async () => {
    const CALLS = 20;
    const sponsor = await fundedSponsor("a2", 10n * MAX_COST);
    const [actor] = await usersWithAddresses("b2", 1);
    const [reservation] = await asUser(actor!.id, (tx) => tx<{ reservation_id: string }[]>`
      select reservation_id from sponsorship.check(${CHAIN}, ${sponsor.address}, 'check_in', 'client-1', ${TARGET},
                                                   '0x12345678', 0, ${actor!.address}, null, ${MAX_COST.toString()}, 100)`);
    await t.owner.begin(async (tx) => {
      await tx`set local role service_jobs`;
      const [verdict] = await tx`select reason from sponsorship.provider_verify('client-1', ${CHAIN}, ${actor!.address},
                                                                               ${TARGET}, '0x12345678', 0, 900)`;
      expect(verdict!.reason).toBe("approved");
    });

    // Every call in its transaction and scope first, then all released at once.
    let arrived = 0;
    let release!: () => void;
    const allInScope = new Promise<void>((resolve) => (release = resolve));
    const outcomes = await Promise.all(Array.from({ length: CALLS }, async () => {
      try {
        const [row] = await asUser(actor!.id, async (tx) => {
          await tx`select 1`;
          if (++arrived === CALLS) release();
          await allInScope;
          return tx<{ usage_id: string; amount: string; released: string; replayed: boolean }[]>`
            select usage_id::text, amount::text, released::text, replayed
            from sponsorship.complete(${reservation!.reservation_id}, 'client-1', ${TARGET}, '0x12345678', 0, 'eoa',
                                      ${txHash(0x1234)}, null, ${actor!.address}, 800)`;
        });
        return row!;
      } catch (error) {
        const e = error as DbError;
        return { error: { code: e.code, hint: e.hint, message: e.message } };
      }
    }));

    expect(outcomes.filter((o) => "error" in o)).toEqual([]);
    const answers = outcomes as { usage_id: string; amount: string; released: string; replayed: boolean }[];
    const usage = await t.owner<{ id: string; amount: string }[]>`
      select id::text, amount::text from sponsorship.usage where reservation_id = ${reservation!.reservation_id}`;
    expect(usage).toHaveLength(1);
    expect(new Set(answers.map((a) => `${a.usage_id} ${a.amount} ${a.released}`))).toEqual(new Set([`${usage[0]!.id} 800 200`]));
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    const [stored] = await t.owner<{ spent: string; held: string }[]>`
      select spent::text, held::text from sponsorship.sponsors where wallet_address = ${sponsor.address}`;
    expect(stored).toEqual({ spent: "800", held: "0" });
    expect(await ledgerMismatches()).toEqual([]);
  });

  it("two owners racing to record one deposit for their own wallets: one records it, the other is deposit_already_recorded", async () => {
    const CALLS = 20;
    const owners = await usersWithAddresses("a3", 2);
    let arrived = 0;
    let release!: () => void;
    const allInScope = new Promise<void>((resolve) => (release = resolve));
    const outcomes = await Promise.all(Array.from({ length: CALLS }, async (_, i) => {
      const owner = owners[i % 2]!;
      try {
        const [row] = await asUser(owner.id, async (tx) => {
          await tx`select 1`;
          if (++arrived === CALLS) release();
          await allInScope;
          return tx<{ deposit_id: string }[]>`
            select deposit_id::text from sponsorship.record_deposit(${CHAIN}, ${owner.address}, ${txHash(0xdead)}, 5000, ${VAULT}, 1, 100)`;
        });
        return { owner: owner.id, deposit: row!.deposit_id };
      } catch (error) {
        const e = error as DbError;
        return { owner: owner.id, error: { code: e.code, hint: e.hint, message: e.message } };
      }
    }));

    const deposits = await t.owner<{ id: string; owner: string }[]>`
      select d.id::text, a.user_id as owner from sponsorship.deposits d
      join core.crypto_addresses a on a.address = d.from_address and a.chain_id = d.chain_id::text
      where d.tx_hash = ${txHash(0xdead)}`;
    expect(deposits).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.owner === deposits[0]!.owner) expect(outcome).toEqual({ owner: outcome.owner, deposit: deposits[0]!.id });
      else expect(outcome.error).toMatchObject({ code: "PT409", hint: "deposit_already_recorded" });
    }
    expect(await ledgerMismatches()).toEqual([]);
  });
});
