// Supabase's layout, for tests: functions live at <host>/functions/v1/<name>/..., and the Edge Runtime
// hands function <name> the path from /<name> on. The host's root belongs to no function.

export const SUPABASE_HOST = "https://abcdefghijklmnopqrst.supabase.co";
/** PUBLIC_API_ROOT as docs/deployment.md sets it on Supabase. */
export const FUNCTIONS_ROOT = `${SUPABASE_HOST}/functions/v1`;
/** The api function's public base. */
export const API = `${FUNCTIONS_ROOT}/api`;

/** The path function `name` receives for `pathname`, or undefined when the request reaches no such function. */
export function functionPath(pathname: string, name: string): string | undefined {
  const prefix = `/functions/v1/${name}`;
  return pathname === prefix || pathname.startsWith(`${prefix}/`) ? pathname.slice("/functions/v1".length) : undefined;
}

type Fetch<P extends unknown[]> = (input: string | URL | Request, init?: RequestInit, ...rest: P) => Promise<Response>;

/** `fetchFunction` (the api function in process) reached as on Supabase: URLs under SUPABASE_HOST, prefix stripped; elsewhere 404. */
export function edgeFetch<P extends unknown[]>(fetchFunction: (request: Request, ...rest: P) => Promise<Response>): Fetch<P> {
  return async (input, init, ...rest) => {
    const request = input instanceof Request ? input : new Request(input.toString(), init);
    const url = new URL(request.url);
    const path = url.origin === SUPABASE_HOST ? functionPath(url.pathname, "api") : undefined;
    if (path === undefined) return Response.json({ error: true, code: "not_found", message: "no such function" }, { status: 404 });
    url.pathname = path;
    return fetchFunction(new Request(url, request), ...rest);
  };
}
