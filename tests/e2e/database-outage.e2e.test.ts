// The database stops under load and starts again, the gateway staying up: while it is gone every
// request is answered 503 database_unavailable with Retry-After (never 401 for a key that could not
// be checked, never 500, never left waiting), and once it is back the same process serves again.
// The figures (how fast, how soon) are the benchmark's: npm run bench -- outage.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callUnderLoad, type OutageRig, outageRequests, startOutageRig, timeUntilServed } from "../../scripts/lib/database-outage.ts";

let rig: OutageRig;

beforeAll(async () => {
  rig = await startOutageRig();
}, 180_000);
afterAll(async () => {
  await rig?.close();
});

describe("the database stops under load", () => {
  it("answers every request 503 database_unavailable with Retry-After, then serves again without a restart", async () => {
    rig.stopDatabase();
    const answers = await callUnderLoad(rig, { connections: 50, seconds: 3 });

    const kinds = new Set(outageRequests(rig).map((r) => r.kind));
    expect(new Set(answers.map((a) => a.kind))).toEqual(kinds);
    const unexpected = answers.filter((a) => a.status !== 503 || a.code !== "database_unavailable" || !(Number(a.retryAfter) >= 1));
    expect(unexpected.slice(0, 5)).toEqual([]);
    // Liveness needs no database: an orchestrator must not restart the gateway for an outage.
    expect((await fetch(`${rig.gateway.url}/health`)).status).toBe(200);

    rig.startDatabase();
    expect(await timeUntilServed(rig, rig.unseenKey, 60_000)).toBeDefined();
    for (const { kind, path, init } of outageRequests(rig).filter((r) => r.kind.startsWith("GET"))) {
      const response = await fetch(rig.gateway.url + path, init);
      expect(response.status, kind).toBe(200);
    }
    expect(rig.gateway.process.exitCode).toBeNull();
  }, 120_000);
});
