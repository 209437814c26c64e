// npm run bench [-- identity] [--seconds N]: run on demand; figures go to docs/performance.md and issue notes.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../lib/local-postgres.ts";
import { benchCommunity } from "./community.ts";
import { benchCheckout } from "./checkout.ts";
import { benchHardening } from "./hardening.ts";
import { benchIdentity } from "./identity.ts";

const suites: Record<string, (o: { seconds: number }) => Promise<unknown>> = {
  identity: benchIdentity,
  community: benchCommunity,
  hardening: benchHardening,
  checkout: benchCheckout,
  webhooks: async (o) => (await import("./webhooks.ts")).benchWebhooks(o),
  sponsorship: async (o) => (await import("./sponsorship.ts")).benchSponsorship(o),
  mcp: async (o) => (await import("./mcp.ts")).benchMcp(o),
  "mcp-toolsets": async (o) => (await import("./mcp-toolsets.ts")).benchMcpToolsets(o),
  outage: async (o) => (await import("./outage.ts")).benchOutage(o),
  sui: async (o) => (await import("./sui.ts")).benchSui(o),
  checkin: async (o) => (await import("./checkin.ts")).benchCheckin(o),
  chat: async (o) => (await import("./chat.ts")).benchChat(o),
  transcription: async () => (await import("./transcription.ts")).benchTranscription(),
  compression: async () => (await import("./compression.ts")).benchCompression(),
  startup: async () => (await import("./cold-start.ts")).benchColdStart(),
};

const { values, positionals } = parseArgs({ options: { seconds: { type: "string", default: "10" } }, allowPositionals: true });
const names = positionals.length ? positionals : Object.keys(suites);
const results: Record<string, unknown> = {};
for (const name of names) {
  const suite = suites[name];
  if (!suite) throw new Error(`unknown bench ${name}; known: ${Object.keys(suites).join(", ")}`);
  console.log(`\n## ${name}\n`);
  results[name] = await suite({ seconds: Number(values.seconds) });
}
mkdirSync(join(REPO_ROOT, ".local", "bench"), { recursive: true });
writeFileSync(join(REPO_ROOT, ".local", "bench", "results.json"), JSON.stringify({ at: new Date().toISOString(), results }, null, 2));
process.exit(0);
