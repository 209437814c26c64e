// /llms.txt: the OpenAPI description rewritten as plain text for language models.
type Json = Record<string, any>;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

function resolve(doc: Json, schema: Json | undefined): Json | undefined {
  if (!schema?.$ref) return schema;
  return doc.components?.schemas?.[String(schema.$ref).split("/").pop()!];
}

function describeFields(doc: Json, schema: Json | undefined, indent: string): string[] {
  const resolved = resolve(doc, schema);
  if (!resolved?.properties) return [];
  const required = new Set<string>(resolved.required ?? []);
  return Object.entries<Json>(resolved.properties).map(([name, prop]) => {
    const p = resolve(doc, prop) ?? prop;
    const type = p.type ?? (p.anyOf ? p.anyOf.map((a: Json) => a.type).join(" | ") : "object");
    const extras = [p.enum ? `one of ${p.enum.join(", ")}` : "", p.description ?? ""].filter(Boolean).join("; ");
    return `${indent}- ${name} (${type}${required.has(name) ? ", required" : ""})${extras ? `: ${extras}` : ""}`;
  });
}

/** One operation (or webhook) under `heading`: summary, description, authentication, parameters, body, responses. */
function renderOperation(doc: Json, heading: string, op: Json): string[] {
  const lines = [`### ${heading}`, "", op.summary ?? ""];
  if (op.description) lines.push("", op.description);
  const auth = op.security?.length ? Object.keys(op.security[0]).join(", ") : "none";
  lines.push("", `Authentication: ${auth}`);
  const params: Json[] = op.parameters ?? [];
  if (params.length) {
    lines.push("Parameters:");
    for (const p of params) {
      const s = p.schema ?? {};
      const extras = [s.enum ? `one of ${s.enum.join(", ")}` : "", s.default !== undefined ? `default ${s.default}` : "", p.description ?? s.description ?? ""]
        .filter(Boolean).join("; ");
      lines.push(`  - ${p.name} (${p.in}, ${s.type ?? "string"}${p.required ? ", required" : ""})${extras ? `: ${extras}` : ""}`);
    }
  }
  const body = op.requestBody?.content?.["application/json"]?.schema;
  if (body) lines.push("Request body (JSON):", ...describeFields(doc, body, "  "));
  lines.push("Responses:");
  for (const [status, response] of Object.entries<Json>(op.responses ?? {})) {
    lines.push(`  - ${status}: ${response.description ?? ""}`);
  }
  lines.push("");
  return lines;
}

export function renderLlmsTxt(doc: Json, sections: { authentication: string; errors: string; limits: string }): string {
  const lines: string[] = [`# ${doc.info.title}`, "", `> ${doc.info.description ?? ""}`, "", `Base URL: ${doc.servers?.[0]?.url ?? ""}`, ""];
  lines.push("## Authentication", "", sections.authentication, "", "## Operations", "");
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const method of METHODS) {
      if (item[method]) lines.push(...renderOperation(doc, `${method.toUpperCase()} ${path}`, item[method]));
    }
  }
  const webhooks = Object.entries<Json>(doc.webhooks ?? {});
  if (webhooks.length) {
    lines.push("## Webhooks (requests the service sends to you)", "");
    for (const [name, item] of webhooks) lines.push(...renderOperation(doc, `WEBHOOK ${name} (POST to your URL)`, item.post));
  }
  lines.push("## Errors", "", sections.errors, "", "## Limits", "", sections.limits, "");
  return lines.join("\n");
}
