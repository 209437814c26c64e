// How many passes of a collection a set of addresses hold on Sui, which ones (their object ids),
// and as of which checkpoint. One StateService.ListOwnedObjects walk per owner (type filter, every
// page). For a collection object id the filter is the package's EventPass type and each pass's
// `collection_id` is read from its BCS contents; for a Move type, every object of that type counts.
//
// The checkpoint: a node stamps each answer with x-sui-checkpoint-height. Pages are separate
// reads, so the result reports the lowest stamp: every count reflects at least that checkpoint.
// The SDK's listOwnedObjects drops response headers, hence the generated StateService client.
import { bcs } from "@mysten/sui/bcs";
import type { SuiGrpcClient } from "@mysten/sui/grpc";
import { isValidStructTag, normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import { fromSui, SuiUnavailable } from "./errors.ts";
import { parseSuiAddress } from "./network.ts";
import { eventPassType } from "./publish.ts";

/** A chain's answer to "how many do these addresses hold", with where in the chain it was read. */
export type Holdings = {
  count: number;
  /** By owner as the chain writes it (Sui: 0x + 64 hex, lower case). */
  perOwner: Record<string, number>;
  /** The tokens counted, where the chain can name them (Sui: the objects' ids), so each can be used once; else null. */
  tokens: string[] | null;
  /** When the service read it (ISO 8601). */
  readAt: string;
} & ({ checkpoint: string } | { block: string });

/** What a chain reader offers the gating rules; EVM implements it with a block number. */
export interface HoldingsReader<Collection> {
  holdings(owners: readonly string[], collection: Collection): Promise<Holdings>;
}

/** A Sui collection: its shared Collection object, or any Move type whose objects count as passes. */
export type SuiCollectionRef = { objectId: string } | { type: string };

// event_pass::collection::EventPass, field for field: only collection_id is used, the rest checks the layout.
const EventPass = bcs.struct("EventPass", {
  id: bcs.Address,
  collection_id: bcs.Address,
  name: bcs.string(),
  description: bcs.string(),
  image_url: bcs.string(),
  project_url: bcs.string(),
  number: bcs.u64(),
  transferable: bcs.bool(),
});

/** The node's maximum page. */
const PAGE_SIZE = 1000;
/** Owners read at once: a gate checks a handful of wallets, a bulk check should not flood the node. */
const PARALLEL_OWNERS = 4;
const CHECKPOINT_HEADER = "x-sui-checkpoint-height";

/** `type` normalised; named packages (`@org/pkg::...`) are refused: the node does not resolve them. */
function moveType(type: string): string {
  if (!type.startsWith("0x") || !isValidStructTag(type)) throw new RangeError(`not a Move struct type: ${type}`);
  return normalizeStructTag(type);
}

/** Passes of `collection` held by each of `owners` (deduplicated), read page by page, and their object ids (by owner, in the node's order). */
export async function countOwned(
  client: SuiGrpcClient,
  args: { owners: readonly string[]; collection: SuiCollectionRef; passType: string; pageSize?: number },
): Promise<{ count: number; perOwner: Record<string, number>; objectIds: string[]; checkpoint: string }> {
  const owners = [...new Set(args.owners.map((owner) => parseSuiAddress(owner, "owner")))];
  if (owners.length === 0) throw new RangeError("at least one owner is required");
  const byCollection = "objectId" in args.collection ? parseSuiAddress(args.collection.objectId, "collection") : null;
  const objectType = moveType("type" in args.collection ? args.collection.type : args.passType);
  let lowest: bigint | null = null;

  const passesOf = async (owner: string) => {
    const ids: string[] = [];
    let pageToken: Uint8Array | undefined;
    do {
      const call = client.stateService.listOwnedObjects({
        owner,
        objectType,
        pageSize: args.pageSize ?? PAGE_SIZE,
        pageToken,
        readMask: { paths: byCollection ? ["object_id", "object_type", "contents"] : ["object_id", "object_type"] },
      });
      const { headers, response } = await fromSui(Promise.resolve(call));
      const stamp = headers[CHECKPOINT_HEADER];
      if (typeof stamp !== "string" || !/^\d+$/.test(stamp)) throw new SuiUnavailable(`The Sui node did not stamp its answer with ${CHECKPOINT_HEADER}`);
      if (lowest === null || BigInt(stamp) < lowest) lowest = BigInt(stamp);
      for (const object of response.objects) {
        if (!object.objectId) throw new Error("The Sui node left out the object id the read asked for");
        if (byCollection) {
          const contents = object.contents?.value;
          if (!contents) throw new Error("The Sui node left out the contents the read asked for");
          if (normalizeSuiAddress(EventPass.parse(contents).collection_id) !== byCollection) continue;
        }
        ids.push(normalizeSuiAddress(object.objectId));
      }
      pageToken = response.nextPageToken?.length ? response.nextPageToken : undefined;
    } while (pageToken);
    return ids;
  };

  const idsByOwner: string[][] = [];
  for (let i = 0; i < owners.length; i += PARALLEL_OWNERS) {
    idsByOwner.push(...await Promise.all(owners.slice(i, i + PARALLEL_OWNERS).map(passesOf)));
  }
  const perOwner = Object.fromEntries(owners.map((owner, i) => [owner, idsByOwner[i]!.length]));
  const objectIds = idsByOwner.flat();
  return { count: objectIds.length, perOwner, objectIds, checkpoint: String(lowest) };
}

/** The HoldingsReader of a Sui network whose passes are `<packageId>::collection::EventPass`. */
export function suiHoldingsReader(client: SuiGrpcClient, packageId: string): HoldingsReader<SuiCollectionRef> {
  const passType = eventPassType(packageId);
  return {
    async holdings(owners, collection) {
      const { count, perOwner, objectIds, checkpoint } = await countOwned(client, { owners, collection, passType });
      return { count, perOwner, tokens: objectIds, checkpoint, readAt: new Date().toISOString() };
    },
  };
}
