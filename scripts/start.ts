// npm start: the local database (unless DATABASE_URL is set), migrations, seed, then the gateway,
// all in this one process. On the local database also everything needed to try each route: the
// checkout demo (scripts/lib/demo-checkout.ts: anvil with the reference collection registered to the
// demo user, a storefront, a relayer and a funded sponsor) and the local services
// (scripts/lib/local-services.ts: jobs and verifier secrets, a mailbox for sign-in codes, the local
// auth server on /auth/v1).
import process from "node:process";
import { formatEther } from "viem";
import { ensurePlaces, gatewayDatabaseUrl, prepareDatabase } from "./db.ts";
import { startGateway } from "./gateway.ts";
import type { DemoChain, DemoSponsor, DemoStore } from "./lib/demo-checkout.ts";
import { LOCAL_ANON_KEY, type LocalServices, startLocalServices } from "./lib/local-services.ts";
import { unconfiguredFeatureLines } from "./lib/unconfigured-features.ts";

const DEMO_API_KEY = "sk_demo0000_local-demo-key-not-secret"; // inserted by supabase/seed.sql
const DEMO_USER_ID = "65f000000000000000000001"; // supabase/seed.sql

const local = !process.env.DATABASE_URL;
const demoProblem = (error: unknown) =>
  console.error(`[demo] the checkout demo is not running: ${error instanceof Error ? error.message : error}`);

// anvil starts and the collection deploys while the database is prepared; neither needs the other.
// An external database (DATABASE_URL: the tests, a deployment) gets no demo chain.
const demoChain: Promise<DemoChain | undefined> = local
  ? import("./lib/demo-checkout.ts")
    .then((demo) => demo.startDemoChain({ port: Number(process.env.DEMO_ANVIL_PORT ?? demo.DEMO_ANVIL_PORT) }))
    .catch((error) => void demoProblem(error))
  : Promise.resolve(undefined);

let chain: DemoChain | undefined;
let databaseUrl: string;
try {
  databaseUrl = await prepareDatabase({ seed: true });
  chain = await demoChain;
} catch (error) {
  await (await demoChain)?.stop();
  throw error;
}
try {
  await chain?.linkOwner({ ownerDatabaseUrl: databaseUrl, userId: DEMO_USER_ID });
} catch (error) {
  demoProblem(error);
  await chain?.stop();
  chain = undefined;
}

const services: LocalServices | undefined = local
  ? await startLocalServices(process.env, { mailPort: Number(process.env.DEMO_MAIL_PORT ?? 54325) })
  : undefined;

const port = process.env.PORT ?? "54321";
const root = `http://${process.env.HOST ?? "127.0.0.1"}:${port}`;
const gatewayEnv: Record<string, string | undefined> = {
  ...process.env,
  ...chain?.gatewayEnv(process.env),
  ...services?.env,
  GATEWAY_DATABASE_URL: gatewayDatabaseUrl(databaseUrl),
  PORT: port,
  PUBLIC_API_ROOT: process.env.PUBLIC_API_ROOT ?? root,
};
const gateway = await startGateway(gatewayEnv);

// Registered and served like an integrator would: through the API, with the demo key.
let store: DemoStore | undefined;
let sponsor: DemoSponsor | undefined;
try {
  store = await chain?.openStore({
    apiRoot: gateway.url,
    apiKey: DEMO_API_KEY,
    port: Number(process.env.DEMO_STOREFRONT_PORT ?? 54324),
  });
  sponsor = await chain?.fundSponsor({ apiRoot: gateway.url, apiKey: DEMO_API_KEY });
} catch (error) {
  demoProblem(error);
  await chain?.stop();
  chain = undefined;
}

const demoLines = !chain || !store ? [] : [
  "",
  "  Checkout demo (local only; anvil restarts empty with every npm start)",
  `  Anvil RPC     ${chain.rpcUrl}  (chain id ${chain.chainId})`,
  `  Collection    ${chain.collectionAddress}  (0.01 ETH, owner dev account #0, registered to the demo user)`,
  `  Pay with      dev account #1 ${chain.customer.address}`,
  `  its key       ${chain.customer.privateKey}`,
  "                (anvil's published dev key: public knowledge, never use it with real funds)",
  `  Storefront    ${store.url}/  (embeds the checkout with the SDK; every page load is a new order)`,
  `  Checkout URL  ${store.session.checkoutUrl}`,
  "                (opened directly: the same page without a storefront around it)",
  `  Relayer       ${chain.relayer.address}  (gasless relays; a new funded key every start)`,
  ...(sponsor
    ? [`  Sponsor       ${sponsor.walletAddress}  (the demo user's; ${formatEther(BigInt(sponsor.availableWei))} ETH available${sponsor.depositedNow ? ", 1 ETH deposited now" : ""})`]
    : []),
];

console.log([
  `gateway listening on ${gateway.url}`,
  "",
  `  API base      ${root}/api/v3`,
  `  Docs          ${root}/api/v3/docs`,
  `  OpenAPI       ${root}/api/v3/openapi`,
  `  Functions     ${root}/functions/v1/<name>`,
  ...(gatewayEnv.LOCAL_AUTH_ENABLED === "true"
    ? [`  Auth          ${root}/auth/v1  (e-mail code sign-in for supabase-js: createClient("${root}", "${LOCAL_ANON_KEY}"))`]
    : []),
  ...(local ? [`  Database      ${databaseUrl}`, `  Demo API key  ${DEMO_API_KEY}`] : []),
  ...(services?.lines ?? []),
  ...demoLines,
  ...unconfiguredFeatureLines(gateway.config),
  "",
  `  Ctrl-C stops the gateway${chain ? ", anvil and the storefront" : ""}${services?.mailSink ? ", the mailbox" : ""}; the database keeps running until \`npm run db:stop\`.`,
  "",
].join("\n"));

// The places data set takes a few seconds to load the first time; everything but autocomplete
// works meanwhile, and the load commits all at once.
ensurePlaces(databaseUrl).catch((error) => console.error(`[db] loading places failed: ${error instanceof Error ? error.message : error}`));

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await gateway.stop();
  await chain?.stop(); // the storefront, then anvil
  await services?.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
