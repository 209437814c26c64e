// The bad-credential figure: a normal client's GET /api/v3/me p99, alone and while 8 clients send bad-key
// requests as fast as they can (each with a fresh made-up key: 9,000 empty query parameters, or a
// 1 MB body of `accessRules: [{},{},…]`). Target: with them, under 3× the p99 without them.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGatewayProcess } from "../lib/gateway-process.ts";
import { benchUserDatabase } from "./identity.ts";
import { AS_DEPLOYED, BENCH_DIR, ensureWrk, formatTable, runWrk, startWrk } from "./wrk.ts";

const NORMAL_CONNECTIONS = 1;
const BAD_KEY_CLIENTS = 8;

// Fresh random keys of the right format, so nothing can be cached; the two costly kinds alternate.
const BAD_KEY_SCRIPT = `
local alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
local function random_text(n)
  local t = {}
  for i = 1, n do local r = math.random(#alphabet); t[i] = alphabet:sub(r, r) end
  return table.concat(t)
end
local empty = {}
for i = 1, 9000 do empty[i] = "a=" end
local many_parameters = "/api/v3/events?" .. table.concat(empty, "&")
local rules = {}
for i = 1, 349000 do rules[i] = "{}" end
local big_body = '{"accessRules":[' .. table.concat(rules, ",") .. ']}'
local n = 0
request = function()
  n = n + 1
  local key = "sk_" .. random_text(8) .. "_" .. random_text(43)
  if n % 2 == 0 then return wrk.format("GET", many_parameters, { ["x-api-key"] = key }) end
  return wrk.format("POST", "/api/v3/events", { ["x-api-key"] = key, ["content-type"] = "application/json" }, big_body)
end
`;

export async function benchHardening(options: { seconds: number }) {
  ensureWrk();
  const { url, key } = await benchUserDatabase();
  const script = join(BENCH_DIR, "bad-keys.lua");
  writeFileSync(script, BAD_KEY_SCRIPT);
  const measure = async (label: string, env: Record<string, string>) => {
    const gateway = await startGatewayProcess({ DATABASE_URL: url, ...env });
    try {
      const me = `${gateway.url}/api/v3/me`;
      const normal = { connections: NORMAL_CONNECTIONS, seconds: options.seconds, headers: { "x-api-key": key } };
      const badKeys = { connections: BAD_KEY_CLIENTS, seconds: options.seconds, script };
      runWrk("warm-up", me, { ...normal, seconds: 2 });
      const alone = runWrk(`GET /api/v3/me, alone${label}`, me, normal);
      const attack = startWrk(`bad-key requests, beside /me (all 401)${label}`, gateway.url, badKeys);
      const attacked = runWrk(`GET /api/v3/me, beside 8 bad-key clients${label}`, me, normal);
      return { rows: [alone, attacked, await attack], ratio: attacked.p99Ms / alone.p99Ms };
    } finally {
      await gateway.stop("SIGKILL");
    }
  };
  const deployed = await measure("", AS_DEPLOYED);
  const guarded = await measure(", local header-read guard", {});
  console.log(formatTable([...deployed.rows, ...guarded.rows]));
  console.log(`\n/me p99 beside bad-key clients ÷ alone: ${deployed.ratio.toFixed(2)}× (target < 3×); ` +
    `through the local guard ${guarded.ratio.toFixed(2)}×`);
  return { deployed, guarded };
}
