// What can be done with Sui event-pass collections, for every surface. A publish is three steps,
// each committed on its own, around the node's calls:
//   sui.begin_publish (the record, idempotent per clientReference; the organiser must be linked),
//   preparePublish + sui.record_prepared (the signed transaction is stored before it is executed:
//     the first one stored is the one that counts),
//   executePrepared + sui.finish_publish (the outcome from the effects).
// A retry after any failure in between executes the stored transaction again: a digest runs once on
// Sui, so nothing is published twice. Publishes of one service key run one at a time (a lease in
// Postgres, sui.lease_signer), and never pay with the coin of a stored transaction not yet executed
// (sui.unfinished_gas_coins): two transactions over the same gas coin version equivocate.
import { createHash, randomUUID } from "node:crypto";
import type { z } from "@hono/zod-openapi";
import type { Config } from "../config.ts";
import type { Tx } from "../db/database.ts";
import type { Scoped } from "../db/scopes.ts";
import { ApiError } from "../http/errors.ts";
import { ok, operation } from "../operations/operation.ts";
import { suiClientFor } from "./client.ts";
import { SuiRejected, SuiUnavailable, SuiUnfunded } from "./errors.ts";
import type { SuiNetworkConfig } from "./network.ts";
import { executePrepared, type PreparedPublish, preparePublish, type PublishOutcome } from "./publish.ts";
import type { PublishSuiCollectionSchema, SuiCollectionSchema } from "./schemas.ts";
import { type SuiSigner, suiSignerFor } from "./signer.ts";

type SuiCollection = z.output<typeof SuiCollectionSchema>;
type PublishInput = z.output<typeof PublishSuiCollectionSchema>;

interface CollectionRow {
  id: string;
  client_reference: string;
  network: SuiCollection["network"];
  package_id: string;
  organiser: string;
  name: string;
  description: string;
  image_url: string;
  project_url: string;
  max_supply: bigint | null;
  transferable: boolean;
  status: SuiCollection["status"];
  tx_bytes: string | null;
  tx_signature: string | null;
  digest: string | null;
  collection_object_id: string | null;
  cap_object_id: string | null;
  pass_type: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

function toSuiCollection(row: CollectionRow): SuiCollection {
  return {
    id: row.id,
    clientReference: row.client_reference,
    network: row.network,
    packageId: row.package_id,
    organiserAddress: row.organiser,
    name: row.name,
    description: row.description,
    imageUrl: row.image_url,
    projectUrl: row.project_url,
    maxSupply: row.max_supply === null ? null : Number(row.max_supply),
    transferable: row.transferable,
    status: row.status,
    digest: row.digest,
    collectionObjectId: row.collection_object_id,
    capObjectId: row.cap_object_id,
    passType: row.pass_type,
    failure: row.failure_code ? { code: row.failure_code, reason: row.failure_reason ?? "" } : null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const columns = (tx: Tx) =>
  tx`id, client_reference, network, package_id, organiser, name, description, image_url, project_url, max_supply,
     transferable, status, tx_bytes, tx_signature, digest, collection_object_id, cap_object_id, pass_type,
     failure_code, failure_reason, created_at, updated_at`;

/** The node and package of `network`, and the service's key, or 503 sui_not_configured. */
function publisherOf(config: Config, network: string): { node: SuiNetworkConfig; signer: SuiSigner } {
  const node = config.SUI_NETWORKS.find((entry) => entry.network === network);
  const signer = suiSignerFor(config);
  if (!node || !signer) {
    throw new ApiError(503, "sui_not_configured", `This service does not publish on ${network}${signer ? "" : " (it has no Sui key)"}.`);
  }
  return { node, signer };
}

/** What makes two requests the same publish: every field, in a fixed order. */
function requestHash(input: PublishInput): Buffer {
  const fields = [input.network, input.name, input.description, input.imageUrl, input.projectUrl, input.maxSupply, input.transferable, input.organiserAddress];
  return createHash("sha256").update(JSON.stringify(fields)).digest();
}

/** 503 sui_unavailable: the publish may be retried with the same request, which never publishes twice. */
const suiUnavailable = (message: string, details?: unknown) =>
  new ApiError(503, "sui_unavailable", message, details, { "Retry-After": "5" });

/** The publish's answer: 201 published now, 200 published earlier, 422 failed (the record says why). */
function answerOf(row: CollectionRow, publishedNow: boolean) {
  const collection = toSuiCollection(row);
  if (row.status === "failed") {
    throw new ApiError(422, "sui_execution_failed", `The chain did not publish the collection: ${row.failure_reason}`, { collection });
  }
  if (row.status !== "published") {
    throw suiUnavailable("The publish is still in progress; retry with the same request.", { collection });
  }
  return ok(collection, publishedNow ? 201 : 200);
}

// How long a publish may hold its key's lease (the node's calls are bounded by SUI_CALL_TIMEOUT_MS
// each), and how long another waits for it before answering 503.
const LEASE_SECONDS = 90;
const LEASE_WAIT_MS = 15_000;
const localQueues = new Map<string, Promise<unknown>>();

/** Runs `work` after the earlier works of `key` in this process: one publish at a time per key here. */
function inLocalQueue<T>(key: string, work: () => Promise<T>): Promise<T> {
  const run = (localQueues.get(key) ?? Promise.resolve()).then(work);
  const settled = run.then(() => {}, () => {});
  localQueues.set(key, settled);
  void settled.then(() => localQueues.get(key) === settled && localQueues.delete(key));
  return run;
}

const beginArguments = (tx: Tx, input: PublishInput, packageId: string) =>
  tx`${input.clientReference}, ${requestHash(input)}, ${input.network}, ${packageId}, ${input.organiserAddress}, ${input.name},
     ${input.description}, ${input.imageUrl}, ${input.projectUrl}, ${input.maxSupply}, ${input.transferable}`;

interface Lease {
  holder: string;
  /** The publish's row, read again under the lease: a concurrent twin may have finished it. */
  row: CollectionRow;
  /** Gas coins of stored transactions not yet executed: the new one must pay with another. */
  unfinishedGasCoins: string[];
}

/**
 * The publish's row (sui.begin_publish) and, while it is pending, the lease of the service's key on
 * the network across replicas (sui.signer_leases, polled while another holds it) with the unfinished
 * gas coins, all in one statement. A row already final takes no lease.
 */
async function takeLease(db: Scoped, input: PublishInput, node: SuiNetworkConfig, signer: string): Promise<Lease | CollectionRow> {
  const holder = randomUUID();
  const deadline = Date.now() + LEASE_WAIT_MS;
  for (;;) {
    const [leased] = await db.statement((tx) => tx<(CollectionRow & { taken: boolean | null; coins: string[] | null })[]>`
      select ${columns(tx)}, l.taken, case when l.taken then sui.unfinished_gas_coins(${node.network}) end as coins
      from sui.begin_publish(${beginArguments(tx, input, node.packageId)}) as c,
           lateral (select case when c.status = 'pending'
                           then sui.lease_signer(${node.network}, ${signer}, ${holder}::uuid, ${LEASE_SECONDS}) end as taken) as l`);
    const { taken, coins, ...row } = leased!;
    if (row.status !== "pending") return row;
    if (taken) return { holder, row, unfinishedGasCoins: coins ?? [] };
    if (Date.now() > deadline) throw new SuiUnavailable("Another replica has been publishing with the service's Sui key for too long");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The outcome as the record's final state, and the lease released, in one statement. */
async function finish(db: Scoped, lease: Lease, signer: string, digest: string, outcome: PublishOutcome | SuiRejected): Promise<CollectionRow> {
  const published = !(outcome instanceof SuiRejected) && outcome.status === "success";
  // A refusal by the node is a failure too: that transaction will never execute.
  const [code, reason] = outcome instanceof SuiRejected
    ? ["sui_rejected", outcome.message]
    : [outcome.errorKind ? outcome.errorKind.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase() : "execution_failed", outcome.error ?? ""];
  const success = outcome instanceof SuiRejected ? undefined : outcome;
  const [row] = await db.statement((tx) => tx<CollectionRow[]>`
    select ${columns(tx)}, sui.release_signer(${lease.row.network}, ${signer}, ${lease.holder}::uuid)
    from sui.finish_publish(${lease.row.id}, ${digest}, ${published}, ${success?.collectionId ?? null},
      ${success?.capId ?? null}, ${success?.passType ?? null}, ${published ? null : code}, ${published ? null : reason})`);
  return row!;
}

/** API keys with collections:publish: it spends the service's gas. Runs its own transactions around the node's calls. */
export const publishSuiCollection = operation({
  name: "sui.collections.publish",
  permission: "collections:publish",
  ownTransactions: true,
  async run({ db, config }, input: PublishInput) {
    const { node, signer } = publisherOf(config, input.network);
    const client = suiClientFor(node);
    try {
      // Retries of a finished publish wait here too, behind this process's publishes in flight.
      return await inLocalQueue(`${node.network}:${signer.address}`, async () => {
        const lease = await takeLease(db, input, node, signer.address);
        if (!("holder" in lease)) return answerOf(lease, false);
        let released = false;
        try {
          const { row } = lease;
          if (row.status !== "pending") return answerOf(row, false);
          let prepared: Pick<PreparedPublish, "bytes" | "signature" | "digest">;
          if (row.tx_bytes && row.tx_signature && row.digest) {
            prepared = { bytes: row.tx_bytes, signature: row.tx_signature, digest: row.digest };
          } else {
            const fresh = await preparePublish(client, signer, {
              packageId: node.packageId,
              input: { ...input, organiser: input.organiserAddress },
              avoidGasCoins: lease.unfinishedGasCoins,
            });
            const [stored] = await db.statement((tx) => tx<{ tx_bytes: string; tx_signature: string; digest: string }[]>`
              select * from sui.record_prepared(${row.id}, ${fresh.bytes}, ${fresh.signature}, ${fresh.digest}, ${fresh.gasCoin})`);
            prepared = { bytes: stored!.tx_bytes, signature: stored!.tx_signature, digest: stored!.digest };
          }
          const outcome = await executePrepared(client, prepared).catch((error: unknown) => {
            if (error instanceof SuiRejected) return error;
            throw error;
          });
          const finished = await finish(db, lease, signer.address, prepared.digest, outcome);
          released = true;
          return answerOf(finished, true);
        } finally {
          if (!released) {
            await db.statement((tx) => tx`select sui.release_signer(${node.network}, ${signer.address}, ${lease.holder}::uuid)`).catch(() => {});
          }
        }
      });
    } catch (error) {
      // An empty gas purse needs the operator, not a retry alone: said in the log.
      if (error instanceof SuiUnfunded) console.error(`[sui] ${error.message}`);
      if (error instanceof SuiUnavailable) throw suiUnavailable(`${error.message}. Retry with the same request: it will not publish twice.`);
      throw error;
    }
  },
});

export const listSuiCollections = operation({
  name: "sui.collections.list",
  async run({ db }) {
    const rows = await db.statement((tx) => tx<CollectionRow[]>`
      select ${columns(tx)} from sui.collections order by created_at desc, id desc limit 200`);
    return ok({ items: rows.map(toSuiCollection) });
  },
});

export const getSuiCollection = operation({
  name: "sui.collections.get",
  async run({ db }, { collectionId }: { collectionId: string }) {
    const [row] = await db.statement((tx) => tx<CollectionRow[]>`select ${columns(tx)} from sui.collections where id = ${collectionId}`);
    if (!row) throw new ApiError(404, "not_found", "No such Sui collection publish.");
    return ok(toSuiCollection(row));
  },
});
