// A gateway on a throwaway cluster of its own, to stop the database under load and start it again:
// for the outage test (tests/e2e/database-outage.e2e.test.ts) and its benchmark (bench outage).
// Not the local cluster: other test files and `npm start` use that one.
import { mkdtempSync } from "node:fs";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { createApiKey, createUser, parsePermissions } from "./admin-operations.ts";
import { freePort, type GatewayProcess, startGatewayProcess } from "./gateway-process.ts";
import { type Cluster, destroyCluster, enableLocalGatewayLogin, startCluster, stopCluster } from "./local-postgres.ts";
import { migrate } from "./migrations.ts";

export interface OutageRig {
  gateway: GatewayProcess;
  /** A key the gateway has accepted (its answer is cached) and one it has never seen. */
  acceptedKey: string;
  unseenKey: string;
  /** The owner's connection URL: for fixtures made before the database stops. */
  ownerUrl: string;
  /** `immediate` (a crash) unless told `fast` (pg_ctl's default: sessions are told to end). */
  stopDatabase(mode?: "fast" | "immediate"): void;
  startDatabase(): void;
  close(): Promise<void>;
}

/** `env`: more of the gateway's configuration (its secrets, for credentials a test signs itself). */
export async function startOutageRig(env: Record<string, string> = {}): Promise<OutageRig> {
  const cluster: Cluster = { dir: mkdtempSync("/var/tmp/events-service-outage-"), port: await freePort() };
  let gateway: GatewayProcess | undefined;
  try {
    startCluster(cluster);
    const ownerUrl = `postgres://postgres:postgres@127.0.0.1:${cluster.port}/postgres`;
    await migrate(ownerUrl);
    await enableLocalGatewayLogin(ownerUrl);
    gateway = await startGatewayProcess({ ...env, DATABASE_URL: ownerUrl });
    const admin = new Database(connect(ownerUrl, { max: 1, prepare: true }));
    const keyOf = async (name: string) => {
      const user = await createUser(admin, {});
      return (await createApiKey(admin, { userId: user.id, name, permissions: parsePermissions([]) })).key;
    };
    const [acceptedKey, unseenKey] = [await keyOf("accepted"), await keyOf("unseen")];
    await admin.close();
    const accepted = await fetch(`${gateway.url}/api/v3/me`, { headers: { "x-api-key": acceptedKey } });
    if (accepted.status !== 200) throw new Error(`the gateway refused a new key: ${accepted.status} ${await accepted.text()}`);
    const started = gateway;
    return {
      gateway: started,
      acceptedKey,
      unseenKey,
      ownerUrl,
      stopDatabase: (mode = "immediate") => void stopCluster(cluster, mode),
      startDatabase: () => void startCluster(cluster),
      close: async () => {
        await started.stop("SIGKILL");
        destroyCluster(cluster);
      },
    };
  } catch (error) {
    await gateway?.stop("SIGKILL");
    destroyCluster(cluster);
    throw error;
  }
}

const jsonPost = (key: string | undefined, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}), ...headers },
  body: JSON.stringify(body),
});

/** One request of each kind that waited longest on a lost database: reads, checkout creation, an MCP call, the token endpoint. */
export function outageRequests(rig: OutageRig): Array<{ kind: string; path: string; init: RequestInit }> {
  const { acceptedKey, unseenKey } = rig;
  return [
    { kind: "GET /me, accepted key", path: "/api/v3/me", init: { headers: { "x-api-key": acceptedKey } } },
    { kind: "GET /me, key not accepted lately", path: "/api/v3/me", init: { headers: { "x-api-key": unseenKey } } },
    { kind: "GET /events", path: "/api/v3/events", init: { headers: { "x-api-key": acceptedKey } } },
    {
      kind: "POST /checkout/sessions",
      path: "/api/v3/checkout/sessions",
      init: jsonPost(acceptedKey, {
        collectionId: "65f0000000000000000000aa", externalOrderId: `order-${crypto.randomUUID()}`,
        items: [{ name: "Ticket", mintPrice: "10000000000000000", quantity: 1 }],
        paymentMethods: ["crypto_wallet"], allowedOrigin: "https://store.example", expiresInSeconds: 1800,
      }),
    },
    {
      kind: "POST /mcp/backend tools/call",
      path: "/mcp/backend",
      init: jsonPost(acceptedKey, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_events", arguments: {} } }, {
        accept: "application/json, text/event-stream",
      }),
    },
    {
      kind: "POST /oauth/token",
      path: "/oauth/token",
      init: { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token&refresh_token=x&client_id=x" },
    },
    { kind: "GET /ready", path: "/ready", init: {} },
  ];
}

export interface OutageAnswer {
  kind: string;
  /** 0: no answer within `answerTimeoutMs`. */
  status: number;
  code: string | undefined;
  retryAfter: string | null;
  ms: number;
}

/** `connections` clients calling the request kinds in turn for `seconds`; every answer, in order. */
export async function callUnderLoad(
  rig: OutageRig,
  { connections, seconds, answerTimeoutMs = 15_000 }: { connections: number; seconds: number; answerTimeoutMs?: number },
): Promise<OutageAnswer[]> {
  const answers: OutageAnswer[] = [];
  const until = Date.now() + seconds * 1000;
  await Promise.all(Array.from({ length: connections }, async (_, client) => {
    for (let turn = client; Date.now() < until; turn++) {
      const requests = outageRequests(rig);
      const { kind, path, init } = requests[turn % requests.length]!;
      const started = performance.now();
      try {
        const response = await fetch(rig.gateway.url + path, { ...init, signal: AbortSignal.timeout(answerTimeoutMs) });
        const body = await response.json().catch(() => undefined) as { code?: string } | undefined;
        answers.push({ kind, status: response.status, code: body?.code, retryAfter: response.headers.get("retry-after"), ms: performance.now() - started });
      } catch {
        answers.push({ kind, status: 0, code: undefined, retryAfter: null, ms: performance.now() - started });
      }
    }
  }));
  return answers;
}

/** Milliseconds from now until a key the gateway has not seen is served again (polling every 20 ms), or undefined. */
export async function timeUntilServed(rig: OutageRig, key: string, timeoutMs: number): Promise<number | undefined> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const response = await fetch(`${rig.gateway.url}/api/v3/me`, { headers: { "x-api-key": key } }).catch(() => undefined);
    await response?.body?.cancel();
    if (response?.status === 200) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}
