// An MCP client linked to a server in the same process (the SDK's linked in-memory transports): the
// service's own tools used as MCP, with no HTTP hop, so no surface calls another. The server is the
// caller's own (one per use, never shared).
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import type { Server } from "@modelcontextprotocol/server";

export const ASSISTANT_CLIENT_INFO = { name: "eventhub-assistant", version: "1.0.0" };

/** A client connected to `server`; closing the client closes both ends. */
export async function connectInMemory(server: Server): Promise<Client> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client(ASSISTANT_CLIENT_INFO);
  await client.connect(clientTransport);
  return client;
}
