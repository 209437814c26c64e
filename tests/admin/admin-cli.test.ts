// The admin CLI as operators run it: the real script under Deno, in a child process, on this
// file's own database; its effects are checked through the in-process API and the database owner.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { decodeJwt } from "jose";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiKey, createUser } from "../../scripts/lib/admin-operations.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { cloneTemplateDatabase, createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runAdmin(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(REPO_ROOT, "node_modules", ".bin", "deno"), ["run", "-A", "scripts/admin.ts", ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs with --json, expects success, and returns the one JSON document on stdout. */
async function adminJson<T = Record<string, any>>(databaseUrl: string, args: string[], env: Record<string, string> = {}): Promise<T> {
  const result = await runAdmin(databaseUrl, [...args, "--json"], env);
  if (result.code !== 0) throw new Error(`admin ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

const sha256Hex = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");

let t: TestContext;
const admin = (args: string[]) => runAdmin(t.url, args);
const json = <T = Record<string, any>>(args: string[]) => adminJson<T>(t.url, args);

beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe("admin CLI: users", () => {
  it("user create returns a 24-hex id of a stored user with its profile", async () => {
    const user = await json(["user", "create", "--email", "cli@example.com", "--username", "cli_user", "--display-name", "CLI User"]);
    expect(user.id).toMatch(/^[0-9a-f]{24}$/);
    const [row] = await t.owner`
      select u.email, p.username, p.display_name from core.users u join core.profiles p on p.user_id = u.id
      where u.id = ${user.id}`;
    expect(row).toEqual({ email: "cli@example.com", username: "cli_user", display_name: "CLI User" });
  });

  it("an invalid username is refused with a readable message and no user is created", async () => {
    const before = await t.owner`select count(*)::int as n from core.users`;
    const result = await admin(["user", "create", "--username", "Not Valid"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/username must be 3-32 characters/);
    expect(result.stdout).toBe("");
    expect(await t.owner`select count(*)::int as n from core.users`).toEqual(before);
  });
});

describe("admin CLI: API keys", () => {
  it("key create prints a key that authenticates /me; the database holds only its sha256", async () => {
    const user = await createUser(t.adminDb, {});
    const result = await admin(["key", "create", "--user", user.id, "--name", "ci key", "--json"]);
    expect(result.code).toBe(0);
    const created = JSON.parse(result.stdout);
    expect(created.key).toMatch(/^sk_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
    expect(created.key.startsWith(`${created.prefix}_`)).toBe(true);
    expect(result.stderr).not.toContain(created.key);

    const me = await t.call("/api/v3/me", { key: created.key });
    expect(me.status).toBe(200);
    expect((await me.json()).id).toBe(user.id);

    const [row] = await t.owner<{ whole_row: string; key_hash_hex: string }[]>`
      select to_jsonb(k)::text as whole_row, encode(k.key_hash, 'hex') as key_hash_hex
      from core.api_keys k where k.id = ${created.id}`;
    expect(row!.key_hash_hex).toBe(sha256Hex(created.key));
    // Every column, the secret part included, and in the hex that to_jsonb gives bytea.
    const secret = created.key.slice(created.prefix.length + 1);
    for (const needle of [created.key, secret, Buffer.from(created.key).toString("hex")]) {
      expect(row!.whole_row).not.toContain(needle);
    }
  });

  it("key create without --json shows the key once, with a shown-once warning", async () => {
    const user = await createUser(t.adminDb, {});
    const result = await admin(["key", "create", "--user", user.id, "--name", "human"]);
    expect(result.code).toBe(0);
    const keys = result.stdout.match(/sk_[a-z0-9]{8}_[A-Za-z0-9_-]{43}/g) ?? [];
    expect(keys).toHaveLength(1);
    expect(result.stdout).toMatch(/shown once/i);
    expect(result.stderr).not.toContain(keys[0]!);
  });

  it("repeated --permission flags are stored in the spec's shape", async () => {
    const user = await createUser(t.adminDb, {});
    const created = await json([
      "key", "create", "--user", user.id, "--name", "checkout bot",
      "--permission", "checkout:create", "--permission", "checkout:retry", "--permission", "sponsorship:write",
    ]);
    const expected = { checkout: ["create", "retry"], sponsorship: ["write"] };
    const [row] = await t.owner`select permissions from core.api_keys where id = ${created.id}`;
    expect(row!.permissions).toEqual(expected);
    expect(created.permissions).toEqual(expected);
  });

  it.each([
    ["not lowercase", "Checkout:Create"],
    ["no action", "checkout"],
    ["too many parts", "checkout:create:now"],
  ])("an invalid permission (%s) is refused with a message and creates no key", async (_, permission) => {
    const user = await createUser(t.adminDb, {});
    const result = await admin(["key", "create", "--user", user.id, "--name", "bad", "--permission", permission]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/invalid permission/);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await t.owner`select id from core.api_keys where owner_id = ${user.id}`).toHaveLength(0);
  });

  it("key create for an unknown user exits 1 naming the user", async () => {
    const result = await admin(["key", "create", "--user", "0123456789abcdef01234567", "--name", "orphan"]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe("admin: no user with id 0123456789abcdef01234567");
  });

  it("key list shows prefix and permissions, never the hash or the key", async () => {
    const user = await createUser(t.adminDb, {});
    const created = await json(["key", "create", "--user", user.id, "--name", "listed", "--permission", "checkout:create"]);
    const { keys } = await json<{ keys: Record<string, unknown>[] }>(["key", "list", "--user", user.id]);
    expect(keys).toEqual([
      {
        id: created.id,
        ownerId: user.id,
        name: "listed",
        prefix: created.prefix,
        permissions: { checkout: ["create"] },
        createdAt: expect.any(String),
        lastUsedAt: null,
        revokedAt: null,
      },
    ]);

    const human = await admin(["key", "list", "--user", user.id]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain(created.prefix);
    expect(human.stdout).toContain("checkout:create");

    const hashHex = sha256Hex(created.key);
    const hashBase64 = Buffer.from(hashHex, "hex").toString("base64");
    for (const output of [JSON.stringify(keys), human.stdout, human.stderr]) {
      expect(output).not.toContain(created.key);
      expect(output).not.toContain(hashHex);
      expect(output).not.toContain(hashBase64);
    }
  });

  it("key revoke makes the very next request with the key answer 401 invalid_api_key", async () => {
    const user = await createUser(t.adminDb, {});
    const key = await createApiKey(t.adminDb, { userId: user.id, name: "to revoke", permissions: {} });
    expect((await t.call("/api/v3/me", { key: key.key })).status).toBe(200);

    const revoked = await json(["key", "revoke", key.prefix]);
    expect(revoked).toMatchObject({ id: key.id, prefix: key.prefix });
    expect(Date.parse(revoked.revokedAt)).not.toBeNaN();

    await expectErrorBody(await t.call("/api/v3/me", { key: key.key }), 401, "invalid_api_key");
  });

  it("key revoke also takes the key's id", async () => {
    const user = await createUser(t.adminDb, {});
    const key = await createApiKey(t.adminDb, { userId: user.id, name: "by id", permissions: {} });
    await json(["key", "revoke", key.id]);
    const [row] = await t.owner`select revoked_at from core.api_keys where id = ${key.id}`;
    expect(row!.revoked_at).toBeInstanceOf(Date);
  });

  it("revoking an unknown key exits 1 with a message; --json still prints one JSON document", async () => {
    const result = await admin(["key", "revoke", "sk_zzzzzzzz"]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('admin: no API key has the id or prefix "sk_zzzzzzzz"');
    expect(result.stdout).toBe("");

    const asJson = await admin(["key", "revoke", "sk_zzzzzzzz", "--json"]);
    expect(asJson.code).toBe(1);
    expect(JSON.parse(asJson.stdout)).toMatchObject({ error: true, code: "api_key_not_found" });
  });
});

describe("admin CLI: addresses", () => {
  it("address link stores an operator-verified, checksummed address that /me/crypto-addresses lists", async () => {
    const user = await t.userWithKey();
    const linked = await json([
      "address", "link", "--user", user.id, "--address", "0x71c7656ec7ab88b098defb751b7401b5f6d8976f", "--chain-id", "8453",
    ]);
    expect(linked.address).toBe("0x71C7656EC7ab88b098defB751B7401B5f6d8976F");

    const [row] = await t.owner`select user_id, verified_by, connector from core.crypto_addresses where id = ${linked.id}`;
    expect(row).toEqual({ user_id: user.id, verified_by: "operator", connector: "operator" });

    const response = await t.call("/api/v3/me/crypto-addresses", { key: user.key });
    expect(response.status).toBe(200);
    expect((await response.json()).items).toEqual([
      { address: "0x71C7656EC7ab88b098defB751B7401B5f6d8976F", chainId: 8453, connector: "operator", createdAt: expect.any(String) },
    ]);
  });

  it("an address that is not an EVM address is refused before anything is stored", async () => {
    const user = await createUser(t.adminDb, {});
    const result = await admin(["address", "link", "--user", user.id, "--address", "0x1234", "--chain-id", "1"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/not an EVM address/);
    expect(await t.owner`select id from core.crypto_addresses where user_id = ${user.id}`).toHaveLength(0);
  });
});

describe("admin CLI: usage", () => {
  it("help and no arguments list every command", async () => {
    for (const args of [[], ["help"]]) {
      const result = await admin(args);
      expect(result.code).toBe(0);
      for (const command of ["user create", "address link", "key create", "key list", "key revoke", "session"]) {
        expect(result.stdout).toContain(command);
      }
    }
  });

  it("an unknown command or option is a usage error (exit 2)", async () => {
    for (const args of [["key", "frobnicate"], ["key", "list", "--bogus"], ["key", "revoke"]]) {
      const result = await admin(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^admin: .*help/);
    }
  });
});

describe("admin CLI: app sessions", () => {
  // A gateway with the local auth server on, whose key and issuer the CLI is given.
  let local: TestContext;
  let env: Record<string, string>;
  beforeAll(async () => {
    env = { LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey(), PUBLIC_API_ROOT: "http://127.0.0.1:54321" };
    local = await createTestContext({ LOCAL_AUTH_ENABLED: "true", ...env });
  });
  afterAll(() => local.close());

  it("session --user <id> mints a Supabase session that the gateway accepts and that refreshes", async () => {
    const user = await local.userWithKey([], { email: "scripted@example.com" });
    const session = await adminJson(local.url, ["session", "--user", user.id], env);
    expect(session).toMatchObject({ token_type: "bearer", expires_in: 3600, user: { id: user.authUserId, email: "scripted@example.com" } });
    expect(decodeJwt(session.access_token)).toMatchObject({ iss: "http://127.0.0.1:54321/auth/v1", sub: user.authUserId, amr: [{ method: "admin" }] });

    const me = await local.app.request("/auth/v1/user", { headers: { authorization: `Bearer ${session.access_token}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).id).toBe(user.authUserId);
    const refreshed = await local.call("/auth/v1/token?grant_type=refresh_token", { method: "POST", json: { refresh_token: session.refresh_token } });
    expect(refreshed.status).toBe(200);
  });

  it("session --user <email> finds the user by address, in any case; without --json shows both tokens", async () => {
    const user = await local.userWithKey([], { email: "by-address@example.com" });
    expect((await adminJson(local.url, ["session", "--user", "By-Address@Example.com"], env)).user.id).toBe(user.authUserId);
    const result = await runAdmin(local.url, ["session", "--user", "by-address@example.com"], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/access token +eyJ/);
    expect(result.stdout).toMatch(/refresh token +\S+/);
  });

  it("an unknown user or address exits 1 naming it; something else is refused before any work", async () => {
    for (const [who, message] of [["0123456789abcdef01234567", "no user with id 0123456789abcdef01234567"], ["nobody@example.com", "nobody@example.com"]]) {
      const result = await runAdmin(local.url, ["session", "--user", who!, "--json"], env);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toMatchObject({ error: true, code: "user_not_found" });
      expect(result.stderr).toContain(message);
    }
    const result = await runAdmin(local.url, ["session", "--user", "neither"], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("neither a user id");
  });
});

describe("admin CLI: a database of its own", () => {
  let database: Awaited<ReturnType<typeof cloneTemplateDatabase>>;
  beforeAll(async () => {
    database = await cloneTemplateDatabase();
  });
  afterAll(() => database.drop());

  it("key list without --user lists every user's keys, and only those", async () => {
    const ana = await adminJson(database.url, ["user", "create"]);
    const bo = await adminJson(database.url, ["user", "create"]);
    const anaKey = await adminJson(database.url, ["key", "create", "--user", ana.id, "--name", "ana"]);
    const boKey = await adminJson(database.url, ["key", "create", "--user", bo.id, "--name", "bo"]);
    const { keys } = await adminJson<{ keys: Array<{ prefix: string; ownerId: string }> }>(database.url, ["key", "list"]);
    expect(keys.map((k) => [k.prefix, k.ownerId]).sort()).toEqual(
      [[anaKey.prefix, ana.id], [boKey.prefix, bo.id]].sort(),
    );

    // The keys really are in that database, not in the shared test context's.
    const sql = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      expect(await sql`select prefix from core.api_keys order by prefix`).toHaveLength(2);
    } finally {
      await sql.end();
    }
  });
});
