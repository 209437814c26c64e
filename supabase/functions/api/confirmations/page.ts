// The confirmation link's page: one static document with a small script (no framework). The link's
// token arrives in the URL's fragment (#token=...), which the browser never sends to any server (so it
// is in no access log and no Referer); the script moves it to sessionStorage, removes it from the
// address bar and sends it in X-Confirmation-Token with each of its same-origin requests. The
// person's identity is the sign-in pages' session cookie; without one the page offers the sign-in
// page in a new tab and carries on once they are back. Once signed in, a bar at the top names them
// and links to /oauth/sign-out (this static page cannot hold the session's CSRF token that the
// sign-out form needs). Its requests and links are relative to the page, so it works wherever the api
// function is served (at the root locally, under /functions/v1/api on Supabase).
import { createHash } from "node:crypto";

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1c1e21;background:#f4f5f7}
main{max-width:36rem;margin:2.5rem auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px #0002}
@media(max-width:38rem){main{margin:0;min-height:100vh;border-radius:0;box-shadow:none;padding:1.25rem}}
h1{font-size:1.35rem;margin:0 0 1rem}p{margin:.5rem 0 1rem}
button,a.button{display:flex;align-items:center;justify-content:center;font:inherit;padding:.7rem 1.1rem;border-radius:8px;border:1px solid #245;cursor:pointer;background:#245ea8;color:#fff;text-decoration:none;text-align:center}
button.secondary,a.button.secondary{background:#fff;color:#245ea8}button:disabled{opacity:.5;cursor:default}
.actions{display:flex;gap:.75rem;flex-wrap:wrap;margin-top:1.25rem}.actions>*{flex:1 1 8rem}
.error{background:#fde8e8;color:#8a1c1c;padding:.6rem .8rem;border-radius:8px}.ok{background:#e6f4ea;color:#1e5b2c;padding:.6rem .8rem;border-radius:8px}
table{width:100%;border-collapse:collapse;margin:.5rem 0 1rem;table-layout:fixed}th,td{text-align:left;vertical-align:top;padding:.45rem .3rem;border-top:1px solid #eee}
td{overflow-wrap:anywhere}th{width:36%;font-weight:600;font-size:.9rem;overflow-wrap:break-word}p{overflow-wrap:anywhere}td.before{color:#777;text-decoration:line-through}tr.changed td.after{font-weight:600;color:#7a4b00}
.account{display:flex;flex-wrap:wrap;gap:.35rem .75rem;align-items:center;justify-content:space-between;margin:0 0 1rem;padding-bottom:.6rem;border-bottom:1px solid #eee;font-size:.9rem;color:#555}
.account strong{color:#1c1e21;overflow-wrap:anywhere}a.signout{margin-left:auto;padding:.3rem .7rem;border:1px solid #9fb4d4;border-radius:8px;color:#245ea8;text-decoration:none;white-space:nowrap}
a:focus-visible,button:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
.muted{color:#666;font-size:.9rem}code{font-family:ui-monospace,monospace;font-size:.85rem;overflow-wrap:anywhere}[hidden]{display:none!important}`;

const SCRIPT = `(() => {
  const id = location.pathname.split("/").pop();
  const key = "confirm:" + id;
  const fragment = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fragment) { sessionStorage.setItem(key, fragment); history.replaceState(null, "", location.pathname); }
  const token = sessionStorage.getItem(key);
  const $ = (s) => document.querySelector(s);
  const show = (s) => { for (const el of document.querySelectorAll("section")) el.hidden = el.id !== s; };
  const say = (el, text, cls) => { el.textContent = text; el.className = cls || ""; el.hidden = !text; };
  const post = async (path, body) => {
    const r = await fetch(location.pathname + "/" + path, { method: "POST", credentials: "same-origin",
      headers: { "content-type": "application/json", "x-confirmation-token": token || "" }, body: JSON.stringify(body || {}) });
    const data = await r.json().catch(() => ({}));
    return { status: r.status, data };
  };
  const STATUS = { approved: "Approved: done.", refused: "You refused this request. Nothing was changed.", expired: "This link has expired. Ask your assistant for a new one.",
    failed: "The approval was recorded but the action failed.", approving: "This request is being approved." };
  function finished(status, detail, code) {
    show("done");
    say($("#done-text"), code === "approval_interrupted" ? "The approval did not finish."
      : STATUS[status] || ("This link is " + status + "."), status === "approved" ? "ok" : (status === "refused" ? "" : "error"));
    $("#done-detail").textContent = detail || "";
  }
  function render(v) {
    $("#title").textContent = v.title;
    $("#client").textContent = v.clientName;
    $("#email").textContent = v.email;
    $("#expires").textContent = new Date(v.expiresAt).toLocaleString();
    $("#hash").textContent = v.actionHash;
    const diff = v.rows.some((r) => r.before !== undefined);
    $("#head-before").hidden = !diff;
    $("#head-after").textContent = diff ? "After" : "Details";
    const body = $("#rows"); body.textContent = "";
    for (const r of v.rows) {
      const tr = document.createElement("tr"); if (r.changed) tr.className = "changed";
      const th = document.createElement("th"); th.textContent = r.label; tr.append(th);
      if (diff) { const b = document.createElement("td"); b.className = r.changed ? "before" : ""; b.textContent = r.before === undefined ? "" : r.before; tr.append(b); }
      const a = document.createElement("td"); a.className = "after"; a.textContent = r.after; tr.append(a);
      body.append(tr);
    }
    $("#signer").textContent = v.approval === "transaction" ? "Approving sends this transaction from the wallet " + v.signer + "."
      : v.signer ? "Approve with the wallet " + v.signer + "." : "Approve with the wallet you want to link.";
    show("action");
  }
  async function load() {
    if (!token) { finished("invalid"); say($("#done-text"), "This link is incomplete. Open the whole link your assistant gave you.", "error"); return; }
    const { status, data } = await post("view");
    $("#account").hidden = status === 401;
    $("#account-email").textContent = data.email || "";
    $("#account-who").hidden = !data.email;
    if (status === 401) { show("signin"); return; }
    if (status !== 200) { show("done"); say($("#done-text"), data.message || "This link cannot be used.", "error"); $("#done-detail").textContent = ""; return; }
    if (data.status !== "pending") { const e = (data.outcome && data.outcome.error) || {}; finished(data.status, e.message, e.code); return; }
    render(data);
  }
  async function approve() {
    const err = $("#action-error"); say(err, "");
    for (const b of document.querySelectorAll("#action button")) b.disabled = true;
    try {
      if (!window.ethereum) throw new Error("No browser wallet was found. Open this link in a browser with your wallet.");
      const [address] = await window.ethereum.request({ method: "eth_requestAccounts" });
      const prepared = await post("prepare", { address });
      if (prepared.status !== 200) throw new Error(prepared.data.message || "The approval could not be prepared.");
      let done;
      const tx = prepared.data.transaction;
      if (tx) {
        const chainId = await window.ethereum.request({ method: "eth_chainId" });
        if (parseInt(chainId, 16) !== parseInt(tx.chainId, 16)) {
          await window.ethereum.request({ method: "wallet_switchEthereumChain", params: [{ chainId: tx.chainId }] });
        }
        const txHash = await window.ethereum.request({ method: "eth_sendTransaction", params: [{ from: tx.from, to: tx.to, value: tx.value }] });
        say(err, "Sent. Waiting for the transaction to be confirmed…", "ok");
        done = await post("approve", { txHash });
      } else {
        const message = prepared.data.message;
        const hexMessage = "0x" + Array.from(new TextEncoder().encode(message), (b) => b.toString(16).padStart(2, "0")).join("");
        const signature = await window.ethereum.request({ method: "personal_sign", params: [hexMessage, address] });
        done = await post("approve", { message, signature });
      }
      if (done.status !== 200) throw new Error(done.data.message || "The approval was refused.");
      const o = done.data.outcome || {}, r = o.result || {};
      finished(done.data.status, o.error ? o.error.message : r.txHash ? "Deposit recorded: transaction " + r.txHash + "."
        : r.address ? "The wallet " + r.address + " is linked to your account." : "The sponsor wallet's settings are saved.", o.error && o.error.code);
    } catch (e) {
      say(err, (e && e.message) || String(e), "error");
      for (const b of document.querySelectorAll("#action button")) b.disabled = false;
    }
  }
  async function refuse() {
    const { status, data } = await post("refuse");
    if (status === 200) finished("refused"); else say($("#action-error"), data.message || "Could not refuse.", "error");
  }
  $("#approve").addEventListener("click", approve);
  $("#refuse").addEventListener("click", refuse);
  $("#signed-in").addEventListener("click", load);
  // Back from the sign-in tab: carry on by itself.
  window.addEventListener("focus", () => { if (!$("#signin").hidden) load(); });
  load();
})();`;

const SCRIPT_HASH = createHash("sha256").update(SCRIPT).digest("base64");

export const PAGE_HEADERS = {
  "Cache-Control": "no-store",
  "Content-Security-Policy": `default-src 'none'; script-src 'sha256-${SCRIPT_HASH}'; style-src 'unsafe-inline'; connect-src 'self'; ` +
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  // The token is in the fragment, which no Referer ever carries; no-referrer also keeps the link's id private.
  "Referrer-Policy": "no-referrer",
};

const BODY = `<div id="account" class="account" hidden><span id="account-who" hidden>Signed in as <strong id="account-email"></strong></span>
<a class="signout" href="../oauth/sign-out">Sign out</a></div>
<section id="loading"><h1>Confirm a request</h1><p class="muted">Loading…</p></section>
<section id="signin" hidden><h1>Sign in to continue</h1>
<p>Your assistant asked you to confirm something. Sign in with your e-mail address first: the sign-in page opens in a new tab.</p>
<div class="actions"><a class="button" href="../oauth/grants" target="_blank" rel="noopener">Sign in</a>
<button id="signed-in" type="button" class="secondary">I have signed in</button></div></section>
<section id="action" hidden><h1 id="title"></h1>
<p><strong id="client"></strong> asks you to approve this for <strong id="email"></strong>. Nothing happens unless you approve.</p>
<table><thead><tr><th>What</th><th id="head-before">Now</th><th id="head-after">After</th></tr></thead><tbody id="rows"></tbody></table>
<p class="muted">Action hash <code id="hash"></code><br>Link expires <span id="expires"></span></p>
<p id="signer"></p><p id="action-error" role="alert" hidden></p>
<div class="actions"><button id="refuse" type="button" class="secondary">Refuse</button><button id="approve" type="button">Approve with wallet</button></div></section>
<section id="done" hidden><h1>Confirmation</h1><p id="done-text" role="status"></p><p id="done-detail" class="muted"></p></section>`;

const HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<title>Confirm a request</title><style>${STYLE}</style></head><body><main>${BODY}</main><script>${SCRIPT}</script></body></html>`;

export function confirmationPage(): string {
  return HTML;
}
