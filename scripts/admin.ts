// npm run admin -- <command> [--json]: operator actions on users, addresses, API keys and app sessions.
// A thin shell over scripts/lib/admin-operations.ts: argument parsing, output, readable errors.
// With DATABASE_URL it works on that database; without, on the local cluster (started if needed).
import process from "node:process";
import { parseArgs } from "node:util";
import { getAddress, isAddress } from "viem";
import { localIssuerFrom, mintSession } from "../supabase/functions/_shared/app-auth/sessions.ts";
import { loadLocalAuthConfig } from "../supabase/functions/_shared/config.ts";
import { connect, Database } from "../supabase/functions/_shared/db/database.ts";
import { ApiError, ConstraintViolation } from "../supabase/functions/_shared/http/errors.ts";
import { ObjectId } from "../supabase/functions/_shared/http/openapi.ts";
import { isEmailAddress } from "../supabase/functions/_shared/oauth/sign-in.ts";
import type { Permissions } from "../supabase/functions/_shared/auth/principal.ts";
import { prepareDatabase } from "./db.ts";
import {
  type ApiKeySummary,
  createApiKey,
  createUser,
  linkAddress,
  listApiKeys,
  parsePermissions,
  revokeApiKey,
  userIdByEmail,
} from "./lib/admin-operations.ts";
import { localAuthSigningKey } from "./lib/local-services.ts";

const USAGE = `Usage: npm run admin -- <command> [options] [--json]

Commands:
  user create [--email E] [--username U] [--display-name N]
      Create a user; prints its id (24-hex ObjectID).
  address link --user <userId> --address <addr> --chain-id <id> [--connector operator]
      Link a crypto address to a user, vouched for by the operator (no signature).
      Numeric chain ids are EVM chains: the address is checked and checksummed.
  key create --user <userId> --name <name> [--permission resource:action ...]
      Create an API key; --permission repeats (checkout:create, sponsorship:write, ...).
      The key is shown once: only its SHA-256 hash is stored.
  key list [--user <userId>]
      List keys (prefix, permissions, status); never hashes or keys.
  key revoke <id-or-prefix>
      Revoke a key by its id or prefix; requests with it fail from then on.
  session --user <userId|email>
      Mint an app session of the local auth server for a user, for scripts: Supabase Auth's
      session JSON (access_token, refresh_token, expires_at, user). Signed with
      LOCAL_AUTH_SIGNING_KEY, else the key npm start keeps in .local/; issuer PUBLIC_API_ROOT/auth/v1.
      On a Supabase project, Supabase Auth makes the sessions: these are for the local auth server.
  help
      Show this text.

Options:
  --json   Print exactly one JSON document on stdout (on failure: {"error": true, "code", "message"}).

Database: DATABASE_URL when set, otherwise the local cluster (started and migrated when needed).
Exit codes: 0 done, 1 failed, 2 usage error.`;

/** A failure the operator can act on: printed as one line, never with a stack trace. */
class CliError extends Error {
  constructor(readonly code: string, message: string, readonly exitCode: 1 | 2 = 1) {
    super(message);
  }
}

const usageError = (message: string) => new CliError("usage", `${message} (run "npm run admin -- help" for usage)`, 2);

interface Output {
  json: unknown;
  lines: string[];
}

interface Command {
  options: string[];
  /** Validates the arguments before any database work, so usage errors are instant. */
  prepare(args: Args): (db: Database) => Promise<Output>;
}

type Args = { values: Record<string, string | string[] | boolean | undefined>; operands: string[] };

const OPTIONS = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  email: { type: "string" },
  username: { type: "string" },
  "display-name": { type: "string" },
  user: { type: "string" },
  address: { type: "string" },
  "chain-id": { type: "string" },
  connector: { type: "string" },
  name: { type: "string" },
  permission: { type: "string", multiple: true },
} as const;

function text(args: Args, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === "string" ? value : undefined;
}

function required(args: Args, name: string): string {
  const value = text(args, name);
  if (value === undefined || value === "") throw usageError(`--${name} is required`);
  return value;
}

function userId(value: string): string {
  if (!ObjectId.safeParse(value).success) throw new CliError("invalid_user_id", `"${value}" is not a user id (24 lowercase hex characters)`);
  return value;
}

function noOperands(args: Args) {
  if (args.operands.length > 0) throw usageError(`unexpected argument "${args.operands[0]}"`);
}

function formatPermissions(permissions: Permissions): string {
  const list = Object.entries(permissions).flatMap(([resource, actions]) => actions.map((a) => `${resource}:${a}`));
  return list.length > 0 ? list.join(",") : "(none)";
}

function describeKey(key: ApiKeySummary): string {
  const status = key.revokedAt ? `revoked ${key.revokedAt}` : "active";
  const used = key.lastUsedAt ? `last used ${key.lastUsedAt}` : "never used";
  return `${key.prefix}  id=${key.id}  user=${key.ownerId}  name=${JSON.stringify(key.name)}  ` +
    `permissions=${formatPermissions(key.permissions)}  ${status}  ${used}`;
}

/** Postgres constraint names (see supabase/migrations) in words an operator can act on. */
const CONSTRAINT_MESSAGES: Record<string, [code: string, message: string]> = {
  users_email_check: ["invalid_email", "the email is not a valid address"],
  users_email_key: ["email_taken", "a user with this email already exists"],
  profiles_username_check: ["invalid_username", "the username must be 3-32 characters of a-z, 0-9 and _"],
  profiles_username_key: ["username_taken", "the username is already taken"],
  profiles_display_name_check: ["invalid_display_name", "the display name must be at most 100 characters"],
  object_id_check: ["invalid_user_id", "the user id must be 24 lowercase hex characters"],
  api_keys_name_check: ["invalid_name", "the key name must be 1-100 characters"],
  api_keys_permissions_check: [
    "invalid_permission",
    "invalid permission: each must be resource:action, both lowercase letters and underscores starting with a letter (e.g. checkout:create)",
  ],
  crypto_addresses_address_check: ["invalid_address", "the address must be 3-128 characters"],
  crypto_addresses_chain_id_check: [
    "invalid_chain_id",
    "the chain id must be a decimal EVM chain id (8453) or a CAIP-2 style name (sui:mainnet)",
  ],
  crypto_addresses_connector_check: ["invalid_connector", "the connector must be 1-64 characters"],
  crypto_addresses_chain_address_key: ["address_already_linked", "this address is already linked on this chain"],
};

/** Database errors arrive as ApiError (translateDatabaseError); name what was wrong. */
function explainDatabaseError(error: unknown, unknownReference = "a record it refers to does not exist"): unknown {
  if (!(error instanceof ApiError)) return error;
  if (error.code === "invalid_reference") return new CliError("user_not_found", unknownReference);
  const constraint = error instanceof ConstraintViolation ? error.constraint : undefined;
  const known = constraint ? CONSTRAINT_MESSAGES[constraint] : undefined;
  if (known) return new CliError(known[0], known[1]);
  return new CliError(error.code, constraint ? `${error.message} (${constraint})` : error.message);
}

const COMMANDS: Record<string, Command> = {
  "user create": {
    options: ["email", "username", "display-name"],
    prepare(args) {
      noOperands(args);
      const input = { email: text(args, "email"), username: text(args, "username"), displayName: text(args, "display-name") };
      return async (db) => {
        const user = await createUser(db, input).catch((e) => {
          throw explainDatabaseError(e);
        });
        return {
          json: { ...user, username: input.username ?? null, displayName: input.displayName ?? null },
          lines: [`created user ${user.id}${user.email ? ` <${user.email}>` : ""}`],
        };
      };
    },
  },

  "address link": {
    options: ["user", "address", "chain-id", "connector"],
    prepare(args) {
      noOperands(args);
      const user = userId(required(args, "user"));
      const chainId = required(args, "chain-id");
      let address = required(args, "address");
      if (/^[0-9]+$/.test(chainId)) {
        // isAddress is strict: a mixed-case address must carry a correct EIP-55 checksum.
        if (!isAddress(address)) {
          throw new CliError(
            "invalid_address",
            isAddress(address, { strict: false })
              ? `"${address}" has a wrong EIP-55 checksum (a typo?); give it in lowercase to skip the check`
              : `"${address}" is not an EVM address (0x and 40 hex characters)`,
          );
        }
        address = getAddress(address);
      }
      const input = { userId: user, address, chainId, connector: text(args, "connector") ?? "operator" };
      return async (db) => {
        const linked = await linkAddress(db, input).catch((e) => {
          throw explainDatabaseError(e, `no user with id ${user}`);
        });
        return {
          json: { ...linked, userId: user, verifiedBy: "operator" },
          lines: [`linked ${linked.address} on chain ${linked.chainId} to user ${user} (connector ${linked.connector})`],
        };
      };
    },
  },

  "key create": {
    options: ["user", "name", "permission"],
    prepare(args) {
      noOperands(args);
      const user = userId(required(args, "user"));
      const name = required(args, "name");
      let permissions: Permissions;
      try {
        permissions = parsePermissions((args.values.permission as string[] | undefined) ?? []);
      } catch (error) {
        throw new CliError("invalid_permission", `invalid permission: ${(error as Error).message} (e.g. checkout:create)`);
      }
      return async (db) => {
        const created = await createApiKey(db, { userId: user, name, permissions }).catch((e) => {
          throw explainDatabaseError(e, `no user with id ${user}`);
        });
        return {
          json: { id: created.id, prefix: created.prefix, key: created.key, name, userId: user, permissions: created.permissions },
          lines: [
            `created API key ${created.prefix} (id ${created.id}) for user ${user}, permissions ${formatPermissions(created.permissions)}`,
            "",
            `  ${created.key}`,
            "",
            "This key is shown once and cannot be recovered: only its hash is stored. Keep it now.",
          ],
        };
      };
    },
  },

  "key list": {
    options: ["user"],
    prepare(args) {
      noOperands(args);
      const user = text(args, "user");
      if (user !== undefined) userId(user);
      return async (db) => {
        const keys = await listApiKeys(db, { userId: user });
        return { json: { keys }, lines: keys.length > 0 ? keys.map(describeKey) : ["no API keys"] };
      };
    },
  },

  "key revoke": {
    options: [],
    prepare(args) {
      const [idOrPrefix, extra] = args.operands;
      if (!idOrPrefix) throw usageError("key revoke needs the key's id or prefix");
      if (extra !== undefined) throw usageError(`unexpected argument "${extra}"`);
      return async (db) => {
        const key = await revokeApiKey(db, idOrPrefix);
        if (!key) throw new CliError("api_key_not_found", `no API key has the id or prefix "${idOrPrefix}"`);
        return { json: key, lines: [`revoked API key ${key.prefix} (id ${key.id}) at ${key.revokedAt}`] };
      };
    },
  },

  session: {
    options: ["user"],
    prepare(args) {
      noOperands(args);
      const user = required(args, "user");
      const byId = ObjectId.safeParse(user).success;
      if (!byId && !isEmailAddress(user.trim())) {
        throw new CliError("invalid_user", `"${user}" is neither a user id (24 lowercase hex characters) nor an e-mail address`);
      }
      return async (db) => {
        const issuer = await localIssuer();
        const id = byId ? user : await userIdByEmail(db, user);
        if (id === undefined) throw new CliError("user_not_found", `no user has the e-mail address ${user}`);
        const session = await mintSession(db, issuer, id).catch((e) => {
          throw explainDatabaseError(e, `no user with id ${id}`);
        });
        return {
          json: session,
          lines: [
            `minted a session for user ${id}${session.user.email ? ` <${session.user.email}>` : ""} (auth user ${session.user.id}),`,
            `issuer ${issuer.url}; the access token expires at ${new Date(session.expires_at * 1000).toISOString()}`,
            "",
            `  access token   ${session.access_token}`,
            `  refresh token  ${session.refresh_token}`,
            "",
            "The refresh token works once (each refresh returns a new one). --json prints Supabase Auth's session JSON.",
          ],
        };
      };
    },
  },
};

/** The local auth server's settings from the environment, its signing key npm start's when none is set. */
async function localIssuer() {
  const signingKey = await localAuthSigningKey(process.env);
  try {
    return localIssuerFrom(loadLocalAuthConfig({ ...process.env, LOCAL_AUTH_SIGNING_KEY: signingKey.value }));
  } catch (error) {
    throw new CliError("invalid_configuration", (error as Error).message);
  }
}

/** Postgres and network failures as one line; the URL is not printed (it may hold a password). */
function describeUnexpected(error: unknown): string {
  const e = error as { code?: unknown; message?: unknown };
  const message = typeof e?.message === "string" ? e.message : String(error);
  if (typeof e?.code === "string" && /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|CONNECT_TIMEOUT|28P01|3D000)$/.test(e.code)) {
    return `cannot reach the database: ${message}`;
  }
  return message;
}

async function main(argv: string[]): Promise<number> {
  let json = argv.includes("--json");
  const fail = (code: string, message: string, exitCode: number) => {
    const oneLine = message.replace(/\s*\n\s*/g, "; ");
    if (json) console.log(JSON.stringify({ error: true, code, message: oneLine }, null, 2));
    console.error(`admin: ${oneLine}`);
    return exitCode;
  };

  let args: Args;
  try {
    const parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
    args = { values: parsed.values, operands: parsed.positionals };
    json = parsed.values.json === true;
  } catch (error) {
    // parseArgs names the option first ("Unknown option '--x'. To specify a positional ..."): keep that.
    return fail("usage", usageError((error as Error).message.split(/\.\s|\n/)[0]!).message, 2);
  }

  const [group, action, ...operands] = args.operands;
  if (group === undefined || group === "help" || args.values.help) {
    if (json) console.log(JSON.stringify({ usage: USAGE, commands: Object.keys(COMMANDS) }, null, 2));
    else console.log(USAGE);
    return 0;
  }
  const name = `${group} ${action ?? ""}`.trim();
  const command = COMMANDS[name];
  if (!command) {
    const known = Object.keys(COMMANDS).filter((c) => c.startsWith(`${group} `));
    return fail(
      "usage",
      usageError(known.length > 0 ? `"${name}" is not a command; try ${known.join(", ")}` : `unknown command "${name}"`).message,
      2,
    );
  }

  let run: (db: Database) => Promise<Output>;
  try {
    const given = Object.keys(args.values).filter((o) => o !== "json" && args.values[o] !== undefined);
    const stray = given.find((o) => !command.options.includes(o));
    if (stray) throw usageError(`${name} does not take --${stray}`);
    run = command.prepare({ values: args.values, operands });
  } catch (error) {
    if (error instanceof CliError) return fail(error.code, error.message, error.exitCode);
    throw error;
  }

  let db: Database | undefined;
  try {
    // The local cluster is started and migrated on demand; an external DATABASE_URL is used as it is
    // (migrating it is `npm run db:migrate`'s job, never a side effect of an admin command).
    const url = process.env.DATABASE_URL ?? (await prepareDatabase({ seed: false }));
    db = new Database(connect(url, { max: 1, prepare: true }));
    const output = await run(db);
    console.log(json ? JSON.stringify(output.json, null, 2) : output.lines.join("\n"));
    return 0;
  } catch (error) {
    if (error instanceof CliError) return fail(error.code, error.message, error.exitCode);
    if (process.env.ADMIN_DEBUG) console.error(error);
    return fail("failed", describeUnexpected(error), 1);
  } finally {
    await db?.close().catch(() => {});
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      console.error(`admin: ${describeUnexpected(error)}`);
      process.exit(1);
    },
  );
}
