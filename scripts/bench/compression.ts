// The compression figures, on the Deno gateway as deployed: bytes on the wire (the response body as
// it travels, headers aside) of a 100,000-ticket check-in manifest, an events page of 100 and the
// docs page's script, sent plain (no Accept-Encoding) and gzipped (Accept-Encoding: gzip); target:
// the manifest under 2 MB gzipped. And the gateway's CPU time (user + system, from /proc) per
// manifest request, plain and gzipped, so the price of compressing is visible, and per gzipped docs
// script request (compressed once, then served from memory).
import { readFileSync } from "node:fs";
import { request } from "node:http";
import postgres from "postgres";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { startGatewayProcess } from "../lib/gateway-process.ts";
import { benchUserDatabase } from "./identity.ts";
import { AS_DEPLOYED } from "./wrk.ts";

const TICKETS = 100_000;
const EVENTS = 100;
const CPU_REQUESTS = 10;

/** The body's bytes as received (still compressed when it came compressed) and its Content-Encoding. */
function wireBytes(url: string, headers: Record<string, string>): Promise<{ status: number; bytes: number; encoding: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      let bytes = 0;
      response.on("data", (chunk: Buffer) => (bytes += chunk.byteLength));
      response.on("end", () => resolve({ status: response.statusCode!, bytes, encoding: response.headers["content-encoding"] ?? "identity" }));
      response.on("error", reject);
    }).on("error", reject).end();
  });
}

/** User plus system CPU seconds the process has used so far (Linux /proc, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const GZIP = { "accept-encoding": "gzip" };
const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(2)} MB`;
const kilobytes = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const size = (bytes: number) => (bytes >= 1_000_000 ? megabytes(bytes) : kilobytes(bytes));

export async function benchCompression() {
  const { url, key, userId } = await benchUserDatabase({}, "bench_compression");
  const owner = postgres(url, { max: 2, onnotice: () => {} });
  const gateway = await startGatewayProcess({ DATABASE_URL: url, ...AS_DEPLOYED, TICKET_SIGNING_KEYS: await generateTicketSigningKey("bench") });
  try {
    // As the check-in bench arranges its door line: people, then an approved reservation each.
    const [door] = await owner<{ id: string }[]>`
      insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone, status)
      values (${userId}, 'Door', 'door', now() + interval '1 day', now() + interval '1 day 2 hours', 'UTC', 'PUBLISHED') returning id`;
    await owner`
      with people as (
        insert into core.users (email) select format('p%s@bench.example', n) from generate_series(1, ${TICKETS}::int) n returning id)
      insert into checkin.reservations (event_id, user_id, status, attendee_name)
      select ${door!.id}, id, 'approved', 'Bench attendee' from people`;
    await owner`
      insert into community.events (owner_id, name, slug, description, starts_at, ends_at, time_zone, status)
      select ${userId}, format('Meetup %s', n), format('meetup-%s', n), format('The %sth meetup of the season: talks, then drinks.', n),
        now() + n * interval '1 day', now() + n * interval '1 day' + interval '2 hours', 'Europe/Berlin', 'PUBLISHED'
      from generate_series(1, ${EVENTS}::int) n`;

    const manifestUrl = `${gateway.url}/api/v3/events/${door!.id}/check-in/manifest`;
    const withKey = { "x-api-key": key };
    const targets = [
      { name: `check-in manifest, ${TICKETS.toLocaleString("en")} tickets`, url: manifestUrl, headers: withKey },
      { name: `events page of ${EVENTS}`, url: `${gateway.url}/api/v3/events?take=${EVENTS}`, headers: withKey },
      { name: "docs page's script (Scalar)", url: `${gateway.url}/api/v3/docs/scalar.js`, headers: {} },
    ];
    const rows = [];
    for (const target of targets) {
      const plain = await wireBytes(target.url, target.headers);
      const gzipped = await wireBytes(target.url, { ...target.headers, ...GZIP });
      if (plain.status !== 200 || gzipped.status !== 200) throw new Error(`${target.name}: ${plain.status} / ${gzipped.status}`);
      rows.push({ name: target.name, plain: plain.bytes, gzipped: gzipped.bytes, encoding: gzipped.encoding });
    }

    const cpuPerRequest = async (url: string, headers: Record<string, string>) => {
      await wireBytes(url, headers); // warm
      const before = cpuSeconds(gateway.process.pid!);
      for (let i = 0; i < CPU_REQUESTS; i++) await wireBytes(url, headers);
      return Math.round(((cpuSeconds(gateway.process.pid!) - before) / CPU_REQUESTS) * 1000);
    };
    const cpuPlainMs = await cpuPerRequest(manifestUrl, withKey);
    const cpuGzipMs = await cpuPerRequest(manifestUrl, { ...withKey, ...GZIP });
    const docsScriptGzipMs = await cpuPerRequest(targets[2]!.url, GZIP);

    console.log("| response | plain | gzip (Accept-Encoding: gzip) | ratio |");
    console.log("|---|---:|---:|---:|");
    for (const row of rows) {
      console.log(`| ${row.name} | ${size(row.plain)} | ${size(row.gzipped)}${row.encoding === "gzip" ? "" : ` (${row.encoding}!)`} | ${(row.gzipped / row.plain * 100).toFixed(1)} % |`);
    }
    const manifest = rows[0]!;
    console.log(`\nmanifest of ${TICKETS.toLocaleString("en")} gzipped: ${megabytes(manifest.gzipped)} (target < 2 MB)`);
    console.log(`gateway CPU per manifest request (mean of ${CPU_REQUESTS}): ${cpuPlainMs} ms plain, ${cpuGzipMs} ms gzipped`);
    console.log(`gateway CPU per gzipped docs script request (gzipped once, then from memory): ${docsScriptGzipMs} ms`);
    return { rows, cpuPlainMs, cpuGzipMs, docsScriptGzipMs };
  } finally {
    await owner.end();
    await gateway.stop("SIGKILL");
  }
}
