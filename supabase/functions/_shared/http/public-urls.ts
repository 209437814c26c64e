// Every URL the service writes (links, OAuth metadata, pages' forms) comes from PUBLIC_API_ROOT, which
// is one of two things (docs/deployment.md):
// - a host root without a path (npm start's http://127.0.0.1:54321, or a custom domain / reverse proxy
//   in front): the api function's surfaces sit at the root, the other functions at /functions/v1/<name>;
// - Supabase's functions root, https://<ref>.supabase.co/functions/v1 (a root with a path): every
//   function sits at <root>/<name>, and the Edge Runtime hands it the path from /<name> on, so the api
//   function's surfaces sit under <root>/api (its REST paths already start with /api).
import type { Config } from "../config.ts";

type Root = Pick<Config, "PUBLIC_API_ROOT">;

const isFunctionsRoot = (config: Root) => new URL(config.PUBLIC_API_ROOT).pathname !== "/";

/** The public URL of `path` as the api function serves it at the local root ("/mcp", "/checkout/<id>", "/api/v3/..."). */
export function apiUrl(config: Root, path: string): string {
  const underApi = isFunctionsRoot(config) && path !== "/api" && !path.startsWith("/api/");
  return `${config.PUBLIC_API_ROOT}${underApi ? "/api" : ""}${path}`;
}

/** The public URL of edge function `name` (its path `/<name>` as the platform hands it over). */
export function functionUrl(config: Root, name: string): string {
  return `${config.PUBLIC_API_ROOT}${isFunctionsRoot(config) ? "" : "/functions/v1"}/${name}`;
}

/**
 * The path the api function routes: on Supabase it receives /api/<rest>, which is <rest> at the local
 * root unless /api/<rest> is itself one of its REST paths (/api/v<n>/..., /api/auth/get-session).
 */
export function apiRoutingPath(path: string): string {
  return /^\/api\/(?!v\d+(\/|$)|auth\/get-session$)/.test(path) ? path.slice("/api".length) : path;
}
