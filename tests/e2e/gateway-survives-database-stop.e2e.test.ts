// The gateway process survives the database stopping while its connections are busy (just after it
// started, several keys calling at once): it answers 503 database_unavailable with Retry-After while
// the database is gone and 200 once it is back, without a restart. postgres.js 3.4.9 used to exit the
// process here (a write buffered for a connection whose socket had just closed: patches/postgres+3.4.9.patch).
// The database is the rig's own throwaway cluster, never the shared one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OutageRig, startOutageRig, timeUntilServed } from "../../scripts/lib/database-outage.ts";
import { type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { createApiKey, createUser, parsePermissions } from "../../scripts/lib/admin-operations.ts";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";

/** Each round: a new gateway, the database stopped this long after it starts serving, under load. */
const STOP_AFTER_MS = [100, 300, 100];
const CLIENTS = 12;

let rig: OutageRig;
let keys: string[];

beforeAll(async () => {
  rig = await startOutageRig();
  const admin = new Database(connect(rig.ownerUrl, { max: 1, prepare: true }));
  try {
    keys = [];
    for (let i = 0; i < 6; i++) {
      const user = await createUser(admin, {});
      keys.push((await createApiKey(admin, { userId: user.id, name: `load ${i}`, permissions: parsePermissions([]) })).key);
    }
  } finally {
    await admin.close();
  }
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

interface Answer {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  /** Why there was no answer (the gateway gone, or no answer in time). */
  failure?: string;
}

async function getMe(gateway: GatewayProcess, key: string): Promise<Answer> {
  try {
    const response = await fetch(`${gateway.url}/api/v3/me`, { headers: { "x-api-key": key }, signal: AbortSignal.timeout(15_000) });
    const body = await response.json().catch(() => undefined) as { code?: string } | undefined;
    return { status: response.status, code: body?.code, retryAfter: response.headers.get("retry-after") };
  } catch (error) {
    return { status: 0, code: undefined, retryAfter: null, failure: (error as Error).name };
  }
}

describe("the gateway survives the database stopping while its connections are busy", () => {
  it.each(STOP_AFTER_MS.map((ms, round) => [round + 1, ms]))(
    "round %i: stopped %i ms after the gateway starts, under load: 503 database_unavailable with Retry-After, then 200 once it is back",
    async (_, stopAfterMs) => {
      const gateway = await startGatewayProcess({ DATABASE_URL: rig.ownerUrl });
      try {
        const answers: Answer[] = [];
        let loading = true;
        const load = Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
          for (let turn = client; loading; turn++) answers.push(await getMe(gateway, keys[turn % keys.length]!));
        }));
        await new Promise((resolve) => setTimeout(resolve, stopAfterMs));
        rig.stopDatabase("immediate");
        try {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          const whileDown = await getMe(gateway, rig.unseenKey);
          loading = false;
          await load;

          expect(gateway.process.exitCode, gateway.output().slice(-2_000)).toBeNull();
          expect(whileDown).toEqual({ status: 503, code: "database_unavailable", retryAfter: "5" });
          // Before the stop a request is served; after it, 503 with Retry-After; nothing else, never a hang.
          const other = answers.filter((a) => a.status !== 200 && !(a.status === 503 && a.code === "database_unavailable" && Number(a.retryAfter) >= 1));
          expect(other.slice(0, 5)).toEqual([]);
        } finally {
          rig.startDatabase();
        }
        expect(await timeUntilServed({ ...rig, gateway }, rig.unseenKey, 30_000)).toBeDefined();
        // Every connection of the pool serves again: no request waits on a connection left unusable.
        const after = await Promise.all(keys.flatMap((key) => [getMe(gateway, key), getMe(gateway, key)]));
        expect(after.filter((a) => a.status !== 200)).toEqual([]);
        expect(gateway.process.exitCode).toBeNull();
        // The patched driver fails those queries itself: the last-resort listeners had nothing to catch.
        expect(gateway.output()).not.toContain("[db] postgres.js");
      } finally {
        await gateway.stop("SIGKILL");
      }
    },
    120_000,
  );
});
