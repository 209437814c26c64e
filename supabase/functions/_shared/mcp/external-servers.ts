// External MCP servers the assistant may use besides the service's own tools (ASSISTANT_MCP_SERVERS):
// the operator names each, with its Streamable HTTP URL and the headers it needs (an API key, say;
// never logged, never answered). Their tools are listed by external-tools.ts.
import { z } from "zod";

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

export const externalMcpServersSchema = z.array(z.object({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,39}$/, "lower-case letters, digits, _ and -, at most 40"),
  url: z.string().url().refine((text) => {
    const url = new URL(text);
    return (url.protocol === "https:" || url.protocol === "http:") && !url.username && !url.password && !url.hash;
  }, "an http(s) URL without credentials or fragment (send keys in headers)"),
  headers: z.record(z.string().regex(HEADER_NAME, "a header name"), z.string().max(4096)).default({})
    .refine((headers) => Object.keys(headers).length <= 20, "at most 20 headers"),
}).strict()).max(20).superRefine((servers, ctx) => {
  const names = servers.map((s) => s.name);
  const duplicate = names.find((name, i) => names.indexOf(name) !== i);
  if (duplicate) ctx.addIssue({ code: "custom", message: `the name ${duplicate} is used twice` });
});

export type ExternalMcpServer = z.infer<typeof externalMcpServersSchema>[number];

/** How the registry names a server: its URL without query (which may carry a key) or credentials. */
export function sourceOf(server: ExternalMcpServer): string {
  const url = new URL(server.url);
  return `${url.origin}${url.pathname}`;
}

