// The demo's one direct write as the database owner: the demo user owns the deployer's address
// (an operator's link, as `npm run admin` would make), so the collection can be registered to it.
import postgres from "postgres";
import type { Address } from "viem";
import { DemoUnavailable } from "./terms.ts";

/** Links `address` to `userId` on `chainId` unless it already is; refuses when another user has it. */
export async function linkAddress(ownerDatabaseUrl: string, userId: string, address: Address, chainId: number): Promise<void> {
  const sql = postgres(ownerDatabaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ user_id: string }[]>`
      with inserted as (
        insert into core.crypto_addresses (user_id, address, chain_id, connector, verified_by)
        values (${userId}, ${address}, ${String(chainId)}, 'injected', 'operator')
        on conflict (chain_id, lower(address)) do nothing
        returning user_id
      )
      select user_id from inserted
      union all
      select user_id from core.crypto_addresses where chain_id = ${String(chainId)} and lower(address) = lower(${address})
      limit 1`;
    if (row?.user_id !== userId) {
      throw new DemoUnavailable(`${address} is linked to user ${row?.user_id} on chain ${chainId}, not to the demo user ${userId}`);
    }
  } finally {
    await sql.end();
  }
}
