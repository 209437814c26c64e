// The Sui figures, in process against the stand-in node (scripts/lib/sui-node.ts, in a process of its
// own: sui-node-process.ts), so its work does not share the measured thread: the service's own
// cost per publish (the request's time minus the time its node calls took, attributed to it by an
// AsyncLocalStorage around fetch), at 1 connection (p50, p99) and at 10 (publishes of one key run
// one at a time by design, so there the mean own cost is the run's time minus all node time, per
// publish), and the ownership read's own cost the same way. Targets: own cost per publish under
// 5 ms (p50 and p99); ownership read p50 under 2 ms plus the node.
import { AsyncLocalStorage } from "node:async_hooks";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import { createApiApp } from "../../supabase/functions/api/app.ts";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { suiClientFor } from "../../supabase/functions/_shared/sui/client.ts";
import { countOwned } from "../../supabase/functions/_shared/sui/holdings.ts";
import { linkAddress } from "../lib/admin-operations.ts";
import { gatewayUrl } from "../lib/local-postgres.ts";
import { benchUserDatabase } from "./identity.ts";
import { startStandInProcess } from "./stand-in-process.ts";

const randomAddress = () => normalizeSuiAddress(`0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}`);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const round = (ms: number) => Number(ms.toFixed(2));

interface NodeTime {
  intervals: Array<[number, number]>;
}

/** How long at least one node call was in flight. */
function nodeMsOf({ intervals }: NodeTime): number {
  let total = 0;
  let reached = -Infinity;
  for (const [start, end] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (end <= reached) continue;
    total += end - Math.max(start, reached);
    reached = end;
  }
  return total;
}

export async function benchSui(options: { seconds: number }) {
  const packageId = randomAddress();
  const serviceKey = new Ed25519Keypair();
  const collectionId = randomAddress();
  const owners = Array.from({ length: 5 }, randomAddress);
  const node = await startStandInProcess("sui-node-process.ts", {
    SUI_PACKAGE_ID: packageId, SUI_FUND_ADDRESS: serviceKey.toSuiAddress(), SUI_PASS_OWNERS: owners.join(","), SUI_PASS_COLLECTION: collectionId,
  });
  const { url, key, userId } = await benchUserDatabase({ collections: ["publish"] });
  const network = { network: "sui:localnet" as const, grpcUrl: node.url, packageId };
  const config = loadConfig({
    GATEWAY_DATABASE_URL: gatewayUrl(url), APP_ENV: "test", SUI_NETWORKS: JSON.stringify([network]), SUI_PRIVATE_KEY: serviceKey.getSecretKey(),
  });
  const db = new Database(connect(config.GATEWAY_DATABASE_URL, { max: 4, prepare: true }), connect(config.GATEWAY_DATABASE_URL, { max: 1, prepare: true }));
  const admin = new Database(connect(url, { max: 1, prepare: true }));
  const organiser = new Ed25519Keypair().toSuiAddress();
  await linkAddress(admin, { userId, address: organiser, chainId: network.network, connector: "bench" });
  await admin.close();
  const app = createApiApp({ config, db });

  // Node calls, attributed to the request whose async context made them; calls made at once (a
  // holdings read asks for every owner together) count once: the length of their intervals' union.
  const spent = new AsyncLocalStorage<NodeTime>();
  let allNodeMs = 0;
  const realFetch = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    if (!String(input instanceof Request ? input.url : input).startsWith(node.url)) return realFetch(input, init);
    const started = performance.now();
    try {
      return await realFetch(input, init);
    } finally {
      const ended = performance.now();
      allNodeMs += ended - started;
      spent.getStore()?.intervals.push([started, ended]);
    }
  };

  let reference = 0;
  const publish = async () => {
    const store: NodeTime = { intervals: [] };
    const started = performance.now();
    const answer = await spent.run(store, () => app.request("/api/v3/crypto/sui/collection/publish", {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({
        network: network.network, clientReference: `bench-${++reference}`, name: "Bench passes", imageUrl: "https://example.com/p.png",
        projectUrl: "https://example.com", maxSupply: 100, organiserAddress: organiser,
      }),
    }));
    if (answer.status !== 201) throw new Error(`publish answered ${answer.status}: ${await answer.text()}`);
    await answer.text();
    return { totalMs: performance.now() - started, nodeMs: nodeMsOf(store) };
  };

  try {
    for (let i = 0; i < 20; i++) await publish(); // warm-up: prepared statements, the client, the JIT
    const sequential: { totalMs: number; nodeMs: number }[] = [];
    const until = Date.now() + (options.seconds * 1000) / 2;
    while (Date.now() < until) sequential.push(await publish());
    const own = sequential.map((r) => r.totalMs - r.nodeMs).sort((a, b) => a - b);
    const node1 = sequential.map((r) => r.nodeMs).sort((a, b) => a - b);

    allNodeMs = 0;
    let concurrentCount = 0;
    const started = performance.now();
    const concurrentUntil = Date.now() + (options.seconds * 1000) / 2;
    await Promise.all(Array.from({ length: 10 }, async () => {
      while (Date.now() < concurrentUntil) {
        await publish();
        concurrentCount++;
      }
    }));
    const wallMs = performance.now() - started;

    // Ownership reads: 5 owners holding 3 passes each of one collection.
    const client = suiClientFor(network);
    const reads: { totalMs: number; nodeMs: number }[] = [];
    for (let i = 0; i < 200; i++) {
      const store: NodeTime = { intervals: [] };
      const readStarted = performance.now();
      const result = await spent.run(store, () =>
        countOwned(client, { owners, collection: { objectId: collectionId }, passType: `${packageId}::collection::EventPass` }));
      if (result.count !== 15) throw new Error(`counted ${result.count} passes, not 15`);
      if (i >= 20) reads.push({ totalMs: performance.now() - readStarted, nodeMs: nodeMsOf(store) });
    }
    const readOwn = reads.map((r) => r.totalMs - r.nodeMs).sort((a, b) => a - b);
    const readNode = reads.map((r) => r.nodeMs).sort((a, b) => a - b);

    const figures = {
      publishOwnMsAt1: { p50: round(percentile(own, 0.5)), p90: round(percentile(own, 0.9)), p95: round(percentile(own, 0.95)), p99: round(percentile(own, 0.99)), publishes: own.length },
      publishNodeMsAt1: { p50: round(percentile(node1, 0.5)) },
      publishesAt10: { perSecond: Math.round(concurrentCount / (wallMs / 1000)), meanOwnMs: round((wallMs - allNodeMs) / concurrentCount) },
      ownershipReadOwnMs: { p50: round(percentile(readOwn, 0.5)), p99: round(percentile(readOwn, 0.99)) },
      ownershipReadNodeMs: { p50: round(percentile(readNode, 0.5)) },
    };
    console.log(
      `publish, 1 connection: own cost p50 ${figures.publishOwnMsAt1.p50} ms, p90 ${figures.publishOwnMsAt1.p90} ms, p95 ${figures.publishOwnMsAt1.p95} ms, p99 ${figures.publishOwnMsAt1.p99} ms ` +
        `(${own.length} publishes; the node's 3 calls p50 ${figures.publishNodeMsAt1.p50} ms)\n` +
        `publish, 10 connections (one key: one at a time): ${figures.publishesAt10.perSecond}/s, mean own cost ${figures.publishesAt10.meanOwnMs} ms\n` +
        `ownership read, 5 owners x 3 passes: own cost p50 ${figures.ownershipReadOwnMs.p50} ms, p99 ${figures.ownershipReadOwnMs.p99} ms ` +
        `(the node: p50 ${figures.ownershipReadNodeMs.p50} ms)`,
    );
    return figures;
  } finally {
    globalThis.fetch = realFetch;
    await db.close();
    await node.close();
  }
}
