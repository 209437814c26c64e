// The hosted checkout page, plain JavaScript with no dependency: it runs in the
// customer's browser, served by the gateway at /checkout/<id> under a CSP that allows only
// same-origin scripts and requests. Flow: read the client secret from the fragment, load the
// client-safe session, check who embeds us, then wallet → chain → prepare → (approve) → pay →
// record the hash → confirm, telling the storefront through postMessage (SPEC.md 6.2).
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const checkoutId = location.pathname.split("/").pop();
  const query = new URLSearchParams(location.search);
  const embedded = query.get("embed") === "1";
  const parentOrigin = query.get("parentOrigin");
  const secret = new URLSearchParams(location.hash.slice(1)).get("clientSecret");
  // The secret leaves the address bar at once: it must not be copied, bookmarked or shared with the
  // URL. It is sent only in the X-Checkout-Client-Secret header, to this same origin.
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);

  const api = new URL(`../api/v3/checkout/sessions/${encodeURIComponent(checkoutId)}`, location.href).href;
  const framed = window.parent !== window;
  let session = null;
  let allowed = false; // may this page show payment actions and talk to its parent?
  let busy = false;
  let finished = false;

  // ---- Messages to the storefront (only to the session's allowedOrigin, never "*") ----

  function post(type, payload) {
    if (!framed || !allowed) return;
    window.parent.postMessage(payload === undefined ? { type } : { type, payload }, session.allowedOrigin);
  }

  // ---- Requests: same origin, the secret in its header, never in a URL ----

  class Problem extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  async function call(path, body) {
    let response;
    try {
      response = await fetch(api + path, {
        method: body === undefined ? "GET" : "POST",
        headers: { "x-checkout-client-secret": secret ?? "", ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
        referrerPolicy: "no-referrer",
      });
    } catch {
      throw new Problem("network_error", "Cannot reach the checkout service. Check your connection and try again.");
    }
    const data = await response.json().catch(() => ({}));
    return { status: response.status, data };
  }

  const LINK_NOT_VALID = "This checkout link is not valid. Go back to the store and start the checkout again.";

  /** The refusal an API answer carries, in words a customer can act on. */
  function refusal({ status, data }) {
    const code = data.code ?? `http_${status}`;
    const state = data.details?.status;
    if (status === 404) return new Problem(code, LINK_NOT_VALID);
    if (code === "origin_not_allowed") return new Problem(code, "This checkout cannot be paid on this site.");
    if (code === "checkout_not_payable" && state === "COMPLETED") return new Problem("already_paid", "This checkout is already paid.");
    if (code === "checkout_not_payable" && state === "EXPIRED") return new Problem("expired", "This checkout has expired. Go back to the store to start again.");
    if (code === "checkout_not_payable" && state === "FAILED") return new Problem("failed", "This checkout was stopped. Go back to the store to start again.");
    return new Problem(code, data.message ?? `The checkout service answered ${status}. Try again in a moment.`);
  }

  // ---- Showing things ----

  const NATIVE_SYMBOL = { 56: "BNB", 100: "xDAI", 137: "POL", 43114: "AVAX" };
  const CHAIN_NAME = {
    1: "Ethereum", 10: "OP Mainnet", 56: "BNB Chain", 100: "Gnosis", 137: "Polygon", 8453: "Base", 42161: "Arbitrum One",
    43114: "Avalanche", 84532: "Base Sepolia", 11155111: "Sepolia", 31337: "Anvil",
  };
  const chainName = (id) => CHAIN_NAME[id] ?? `chain ${id}`;
  const short = (address) => `${address.slice(0, 6)}…${address.slice(-4)}`;

  /** `amount` (smallest unit, decimal string) with `decimals`, trailing zeros dropped: "10000000000000000", 18 → "0.01". */
  function formatUnits(amount, decimals) {
    const digits = BigInt(amount).toString().padStart(decimals + 1, "0");
    const whole = digits.slice(0, digits.length - decimals);
    const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
    return fraction ? `${whole}.${fraction}` : whole;
  }

  function priceText(s) {
    // An ERC-20's symbol() as read at registration; a token without one is named by its address.
    const symbol = !s.paymentToken.address
      ? NATIVE_SYMBOL[s.chainId] ?? "ETH"
      : s.paymentToken.symbol ?? `tokens (${short(s.paymentToken.address)})`;
    return `${formatUnits(s.price, s.paymentToken.decimals)} ${symbol}`;
  }

  function setStatus(text, kind) {
    $("status").textContent = text;
    $("status").className = kind === "success" ? "status success" : "status";
  }

  function showError(message) {
    $("error").textContent = message;
    $("error").hidden = !message;
  }

  /** Ends the page in a final state: no more actions, only what happened. */
  function finish(text, kind) {
    finished = true;
    $("wallets").hidden = true;
    $("cancel").hidden = true;
    $("expiry").hidden = true;
    setStatus(text, kind);
  }

  const STEPS = { connect: "Connect your wallet", network: "Switch network", approve: "Approve the token", pay: "Pay", confirm: "Confirm on chain" };
  function progress(current) {
    const names = Object.keys(STEPS).filter((name) => name !== "approve" || session.paymentToken.address);
    const index = current === "done" ? names.length : names.indexOf(current);
    $("steps").replaceChildren(...names.map((name, i) => {
      const li = document.createElement("li");
      li.textContent = STEPS[name];
      li.className = i < index ? "done" : i === index ? "active" : "";
      return li;
    }));
    $("steps").hidden = false;
  }

  function renderSession(s) {
    $("name").textContent = s.item.name;
    $("description").textContent = s.item.description;
    $("price").textContent = priceText(s);
    const collection = document.createElement("span");
    collection.className = "nowrap";
    collection.textContent = `NFT ${short(s.collectionAddress)}`;
    $("network").replaceChildren(`Paid on ${chainName(s.chainId)} · `, collection);
    const image = $("image");
    image.alt = s.item.name;
    // An image that cannot load (blocked or gone) leaves a neutral tile, not a broken icon.
    image.addEventListener("error", () => (image.hidden = true), { once: true });
    image.src = s.item.image;
    $("item").hidden = false;
  }

  function tickExpiry() {
    if (finished || !session) return;
    const left = Math.floor((Date.parse(session.expiresAt) - Date.now()) / 1000);
    if (left > 0) {
      $("expiry").textContent = `Expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
      $("expiry").hidden = false;
    } else if (!busy) {
      // A payment already sent keeps being confirmed: one prepared before expiry still completes.
      finish("This checkout has expired. Go back to the store to start again.");
      post("payment-error", { error: { code: "expired", message: "The checkout expired." } });
    }
  }

  // ---- Wallets: EIP-6963 discovery, then window.ethereum ----

  const wallets = new Map(); // uuid → { info, provider }

  function renderWallets() {
    if (!allowed || finished) return;
    const choices = [...wallets.values()];
    if (choices.length === 0 && window.ethereum) choices.push({ info: { name: "your browser wallet" }, provider: window.ethereum });
    const box = $("wallets");
    if (choices.length === 0) {
      box.replaceChildren();
      // Not "reload": the page removed its secret from the address bar, so only the store can open this checkout again.
      showError("No wallet found. Install a wallet extension (such as MetaMask), or use your wallet app's browser, then open this checkout again from the store.");
    } else {
      if ($("error").textContent.startsWith("No wallet found")) showError("");
      box.replaceChildren(...choices.map(({ info, provider }) => {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.action = "pay";
        if (info.icon?.startsWith("data:image/")) {
          const icon = document.createElement("img");
          icon.src = info.icon;
          icon.alt = "";
          button.append(icon);
        }
        button.append(`Pay with ${info.name}`); // the price is shown just above
        button.disabled = busy;
        button.addEventListener("click", () => pay(provider));
        return button;
      }));
    }
    box.hidden = false;
  }

  window.addEventListener("eip6963:announceProvider", (event) => {
    const { info, provider } = event.detail ?? {};
    if (!info?.uuid || typeof provider?.request !== "function") return;
    wallets.set(info.uuid, { info, provider });
    renderWallets();
  });

  /** What a wallet's refusal means for the customer (EIP-1193 and EIP-1474 codes). */
  function walletProblem(error, what) {
    const code = error?.code ?? error?.cause?.code;
    if (code === 4001) return new Problem("user_rejected", `You declined ${what} in your wallet. Press Pay to try again.`);
    if (code === -32002) return new Problem("wallet_busy", "Your wallet already has a request waiting: open it and answer it.");
    if (code === 4100) return new Problem("wallet_unauthorized", "Your wallet did not allow this site. Unlock it and try again.");
    return new Problem("wallet_error", `Your wallet could not complete ${what}: ${error?.message ?? error}`);
  }

  async function ask(provider, what, method, params) {
    try {
      return await provider.request(params === undefined ? { method } : { method, params });
    } catch (error) {
      throw walletProblem(error, what);
    }
  }

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const toQuantity = (value) => `0x${BigInt(value ?? 0).toString(16)}`;

  async function switchChain(provider) {
    const current = Number(await ask(provider, "reading its network", "eth_chainId"));
    if (current === session.chainId) return;
    try {
      await provider.request({ method: "wallet_switchEthereumChain", params: [{ chainId: toQuantity(session.chainId) }] });
    } catch (error) {
      if ((error?.code ?? error?.cause?.code) === 4902) {
        throw new Problem("chain_not_added", `Your wallet does not know ${chainName(session.chainId)} (chain id ${session.chainId}). Add it to your wallet, then press Pay again.`);
      }
      throw walletProblem(error, `switching to ${chainName(session.chainId)}`);
    }
  }

  /** Polls the receipt through the wallet's own node; throws when the transaction reverted. */
  async function receiptOf(provider, hash, what) {
    for (;;) {
      const receipt = await ask(provider, "reading the transaction", "eth_getTransactionReceipt", [hash]);
      if (receipt) {
        if (receipt.status !== "0x1") throw new Problem("transaction_reverted", `The ${what} transaction failed on chain. Press Pay to try again.`);
        return receipt;
      }
      await sleep(1000);
    }
  }

  async function pay(provider) {
    if (busy || finished) return;
    busy = true;
    showError("");
    renderWallets();
    try {
      progress("connect");
      setStatus("Connect your wallet…");
      const [payer] = await ask(provider, "connecting", "eth_requestAccounts");
      if (!payer) throw new Problem("no_account", "Your wallet shared no account. Unlock it and try again.");

      progress("network");
      setStatus(`Switching your wallet to ${chainName(session.chainId)}…`);
      await switchChain(provider);

      setStatus("Preparing the payment…");
      // Embedded: the origin the SDK passed (already checked equal to allowedOrigin). Opened
      // directly from checkoutUrl nobody embeds the page, and the store's origin is the one it
      // was created for.
      const embeddingOrigin = framed ? parentOrigin : session.allowedOrigin;
      const prepared = await call("/payments", { payerAddress: payer, embeddingOrigin });
      if (prepared.status !== 201) throw refusal(prepared);
      const { attemptId, transactions } = prepared.data;

      let paymentHash;
      for (const transaction of transactions) {
        const approving = transaction.kind === "approve";
        progress(approving ? "approve" : "pay");
        setStatus(approving ? "Approve the token in your wallet…" : "Confirm the payment in your wallet…");
        const hash = await ask(provider, approving ? "the approval" : "the payment", "eth_sendTransaction", [
          { from: payer, to: transaction.to, data: transaction.data, value: toQuantity(transaction.value) },
        ]);
        if (approving) {
          setStatus("Waiting for the approval to be included…");
          await receiptOf(provider, hash, "approval");
        } else {
          paymentHash = hash;
          // Recorded at once, so the service completes the checkout even if this page closes now.
          const recorded = await call(`/payments/${encodeURIComponent(attemptId)}/transaction`, { txHash: hash });
          if (recorded.status !== 202) throw refusal(recorded);
        }
      }

      progress("confirm");
      setStatus("Confirming the payment on chain…");
      for (;;) {
        const confirmed = await call("/confirm", { txHash: paymentHash });
        if (confirmed.status === 200) break;
        if (confirmed.status !== 202) throw refusal(confirmed);
        await sleep(1500);
      }
      progress("done");
      finish("Payment received. Thank you!", "success");
      post("payment-success", { checkoutId, transactionHash: paymentHash });
    } catch (error) {
      const problem = error instanceof Problem ? error : new Problem("unexpected_error", String(error?.message ?? error));
      busy = false;
      if (problem.code === "already_paid") finish(problem.message, "success");
      else if (problem.code === "expired" || problem.code === "failed") finish(problem.message);
      else {
        showError(problem.message);
        setStatus("");
        renderWallets();
      }
      post("payment-error", { error: { code: problem.code, message: problem.message } });
    }
  }

  // ---- Start ----

  async function start() {
    if (!secret) throw new Problem("missing_secret", "This checkout link is incomplete. Go back to the store and start the checkout again.");
    const read = await call("");
    // A malformed id (400) is as useless to the customer as an unknown one (404).
    if (read.status === 400) throw new Problem("not_found", LINK_NOT_VALID);
    if (read.status !== 200) throw refusal(read);
    session = read.data;
    renderSession(session);

    // Rule 5 (SPEC.md 4.4): payment actions only when the embedding origin is exactly allowedOrigin.
    // The CSP frame-ancestors already keeps other origins from framing us; this also covers a wrong
    // parentOrigin, and Chromium's ancestorOrigins tells who really embeds us.
    if (framed || embedded) {
      const shownOn = parentOrigin ?? "an unknown site";
      const ancestor = location.ancestorOrigins?.[0];
      allowed = parentOrigin === session.allowedOrigin && (!framed || ancestor === undefined || ancestor === session.allowedOrigin);
      if (!allowed) {
        finish(`This checkout cannot be shown on ${shownOn}.`);
        return;
      }
    } else {
      allowed = true; // opened directly from checkoutUrl: no one embeds it
    }

    if (session.status === "COMPLETED") finish("This checkout is already paid.", "success");
    else if (session.status === "EXPIRED") finish("This checkout has expired. Go back to the store to start again.");
    else if (session.status === "FAILED") finish("This checkout was stopped. Go back to the store to start again.");
    else {
      setStatus(`Pay ${priceText(session)} to receive this NFT.`);
      renderWallets();
      if (framed) $("cancel").hidden = false;
      tickExpiry();
      setInterval(tickExpiry, 1000);
    }
    post("loaded", { checkoutId, status: session.status });
  }

  $("cancel").addEventListener("click", () => {
    if (busy) return;
    finish("Checkout canceled.");
    post("payment-canceled");
  });

  // Wallets announce themselves in answer to this request (EIP-6963); late ones re-render the list.
  window.dispatchEvent(new Event("eip6963:requestProvider"));
  start().catch((error) => {
    finish(error instanceof Problem ? error.message : "The checkout could not be loaded. Reload the page to try again.");
    showError("");
    $("status").className = "status error";
  });
})();
