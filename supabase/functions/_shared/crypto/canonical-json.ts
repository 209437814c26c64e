// JSON with object keys sorted at every level: one text per value, whatever order its keys came in.
// What the service hashes when equal values must give equal hashes: a checkout request's idempotency
// fingerprint, a confirmation link's action. Keys whose value is undefined are left out, as
// JSON.stringify leaves them out.
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
