// The authorization server's pages: sign-in by e-mail code, consent, the person's grants and
// sign-out. Plain HTML forms (they work without JavaScript), one small stylesheet, readable at phone
// width. Pages for a signed-in person carry an account bar with their address and a Sign out button.
import { READ_SCOPES } from "../../_shared/auth/mcp-oauth.ts";
import { hostOf } from "../../_shared/oauth/clients.ts";

const SCOPE_DESCRIPTIONS: Record<string, string> = {
  "events:read": "See events you can see",
  "hubs:read": "See hubs you can see",
  "venues:read": "Look up venues",
  "checkout:read": "See checkout sessions",
  "sponsorship:read": "See your sponsorship balances and usage",
  "reservations:read": "See your reservations and show your tickets",
  "checkin:read": "See the attendees and check-in counts of events you host or check people in at",
  "events:write": "Create, change and delete your events",
  "hubs:write": "Create, change and delete your hubs",
  "wallet:link": "Link wallets to your account",
  "sponsorship:write": "Change sponsorship settings and spend sponsored gas",
  "reservations:write": "Reserve and cancel spots at events",
  "checkin:write": "Approve or decline attendees, check people in and bind bracelets at events you host or check people in at",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c1e21;background:#f4f5f7}
main{max-width:30rem;margin:2.5rem auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px #0002}
@media(max-width:32rem){main{margin:0;min-height:100vh;border-radius:0;box-shadow:none;padding:1.25rem}}
h1{font-size:1.35rem;margin:0 0 1rem}p{margin:.5rem 0 1rem}label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email],input[type=text]{width:100%;padding:.7rem;font:inherit;border:1px solid #bbb;border-radius:8px}
input[inputmode=numeric]{letter-spacing:.3em;font-size:1.3rem;text-align:center}
button,a.button{font:inherit;padding:.7rem 1.1rem;border-radius:8px;border:1px solid #245;cursor:pointer;background:#245ea8;color:#fff;text-decoration:none;text-align:center}
button.secondary,a.button.secondary{background:#fff;color:#245ea8}.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.25rem}
.actions button,.actions a.button{flex:1 1 8rem}.error{background:#fde8e8;color:#8a1c1c;padding:.6rem .8rem;border-radius:8px}
fieldset{border:1px solid #ddd;border-radius:8px;margin:1rem 0;padding:.5rem .9rem}legend{font-weight:600;padding:0 .3rem}
.scope{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;margin:.5rem 0}.scope input{margin-top:.35rem}
.scope code{font-size:.85rem;color:#555;display:block}.host{font-family:ui-monospace,monospace;word-break:break-all}
ul.grants{list-style:none;padding:0}ul.grants li{border-top:1px solid #eee;padding:.75rem 0;display:flex;gap:.75rem;justify-content:space-between;align-items:center;flex-wrap:wrap}
.muted{color:#666;font-size:.9rem}
.account{display:flex;flex-wrap:wrap;gap:.35rem .75rem;align-items:center;justify-content:space-between;margin:0 0 1rem;padding-bottom:.6rem;border-bottom:1px solid #eee;font-size:.9rem;color:#555}
.account strong{color:#1c1e21;overflow-wrap:anywhere}.account form{margin:0 0 0 auto}
button.link{padding:.3rem .7rem;font-size:.9rem;background:#fff;color:#245ea8;border-color:#9fb4d4}
button:focus-visible,a:focus-visible{outline:3px solid #f0a500;outline-offset:2px}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

const hidden = (name: string, value: string | undefined) =>
  value === undefined ? "" : `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
const errorLine = (error?: string) => (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "");

// `issuer`: the authorization server's public URL (issuerOf), which every form posts under.

/**
 * The signed-in person's address and the Sign out button (POST /oauth/sign-out with the session's
 * CSRF token). `request` is the pending authorization, so the signed-out page can offer to sign in
 * again for it.
 */
function accountBar(issuer: string, o: { email: string; csrf: string; request?: string }): string {
  return `<div class="account"><span>Signed in as <strong>${escapeHtml(o.email)}</strong></span>` +
    `<form method="post" action="${issuer}/oauth/sign-out">${hidden("csrf", o.csrf)}${hidden("request", o.request)}` +
    `<button type="submit" class="link">Sign out</button></form></div>`;
}

export function signInPage(issuer: string, o: { request?: string; email?: string; error?: string; clientName?: string }): string {
  const why = o.clientName ? `to connect <strong>${escapeHtml(o.clientName)}</strong> to your account` : "to manage your connected assistants";
  return page("Sign in", `<h1>Sign in</h1><p>Sign in ${why}. We will e-mail you a code.</p>${errorLine(o.error)}
<form method="post" action="${issuer}/oauth/sign-in">${hidden("request", o.request)}
<label for="email">E-mail address</label><input id="email" type="email" name="email" required autocomplete="email" value="${escapeHtml(o.email ?? "")}">
<div class="actions"><button type="submit">Send code</button></div></form>`);
}

export function codePage(issuer: string, o: { request?: string; email: string; signInId: string; error?: string }): string {
  return page("Enter your code", `<h1>Check your e-mail</h1><p>We sent a 6-digit code to <strong>${escapeHtml(o.email)}</strong>. It works once, for a few minutes.</p>${errorLine(o.error)}
<form method="post" action="${issuer}/oauth/sign-in/verify">${hidden("request", o.request)}${hidden("email", o.email)}${hidden("sign_in_id", o.signInId)}
<label for="code">Code</label><input id="code" type="text" name="code" required inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6">
<div class="actions"><button type="submit">Continue</button></div></form>`);
}

export function consentPage(issuer: string, o: { request: string; csrf: string; clientName: string; redirectHost: string; scopes: string[]; email: string }): string {
  const box = (scope: string) =>
    `<label class="scope"><input type="checkbox" name="scope" value="${escapeHtml(scope)}"${(READ_SCOPES as readonly string[]).includes(scope) ? " checked" : ""}>` +
    `<span>${escapeHtml(SCOPE_DESCRIPTIONS[scope] ?? scope)}<code>${escapeHtml(scope)}</code></span></label>`;
  const reads = o.scopes.filter((s) => (READ_SCOPES as readonly string[]).includes(s));
  const writes = o.scopes.filter((s) => !(READ_SCOPES as readonly string[]).includes(s));
  return page("Allow access?", `${accountBar(issuer, { email: o.email, csrf: o.csrf, request: o.request })}<h1>Allow <span>${escapeHtml(o.clientName)}</span> to use your account?</h1>
<p>After you choose, you go back to <span class="host">${escapeHtml(o.redirectHost)}</span>.</p>
<p class="muted">The name is the client's own; only allow clients you started yourself.</p>
<form method="post" action="${issuer}/oauth/consent">${hidden("request", o.request)}${hidden("csrf", o.csrf)}
${reads.length ? `<fieldset><legend>Read</legend>${reads.map(box).join("")}</fieldset>` : ""}
${writes.length ? `<fieldset><legend>Change (off unless you tick them)</legend>${writes.map(box).join("")}</fieldset>` : ""}
<div class="actions"><button type="submit" name="decision" value="deny" class="secondary">Deny</button><button type="submit" name="decision" value="approve">Allow</button></div></form>`);
}

export interface GrantRow {
  id: string;
  client_name: string;
  redirect_uri: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
}

export function grantsPage(issuer: string, o: { grants: GrantRow[]; csrf: string; email: string; notice?: string }): string {
  const item = (g: GrantRow) => `<li><div><strong>${escapeHtml(g.client_name)}</strong> <span class="muted host">${escapeHtml(hostOf(g.redirect_uri))}</span>
<div class="muted">${g.scopes.map(escapeHtml).join(", ")} · since ${g.created_at.toISOString().slice(0, 10)}${g.last_used_at ? ` · used ${g.last_used_at.toISOString().slice(0, 10)}` : ""}</div></div>
<form method="post" action="${issuer}/oauth/grants/revoke">${hidden("csrf", o.csrf)}${hidden("grant_id", g.id)}<button type="submit" class="secondary">Revoke</button></form></li>`;
  return page("Connected assistants", `${accountBar(issuer, { email: o.email, csrf: o.csrf })}<h1>Connected assistants</h1>
${o.notice ? `<p role="status">${escapeHtml(o.notice)}</p>` : ""}
${o.grants.length ? `<ul class="grants">${o.grants.map(item).join("")}</ul>` : "<p>No assistant has access to your account.</p>"}`);
}

/** GET /oauth/sign-out (the confirmation page's Sign out link leads here): the button alone. */
export function signOutPage(issuer: string, o: { email: string; csrf: string }): string {
  return page("Sign out", `<h1>Sign out</h1><p>You are signed in as <strong>${escapeHtml(o.email)}</strong> on this browser.</p>
<form method="post" action="${issuer}/oauth/sign-out">${hidden("csrf", o.csrf)}<div class="actions"><button type="submit">Sign out</button></div></form>`);
}

/** After sign-out (or with no session to end): says so and offers to sign in again. */
export function signedOutPage(o: { again: string; againLabel: string; wasSignedIn: boolean }): string {
  const said = o.wasSignedIn ? "You are signed out on this browser." : "You are not signed in on this browser.";
  return page("Signed out", `<h1>Signed out</h1><p role="status">${said} Assistants you allowed keep their access until you revoke it on the Connected assistants page.</p>
<div class="actions"><a class="button secondary" href="${escapeHtml(o.again)}">${escapeHtml(o.againLabel)}</a></div>`);
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p class="error" role="alert">${escapeHtml(message)}</p>`);
}
