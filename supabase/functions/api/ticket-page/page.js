// The ticket page, plain JavaScript: draws the QR code of the ticket in the URL's fragment
// (/tickets#<token>), which the browser never sends to a server, with the encoder served beside it
// (window.qrcode, from qrcode-generator). The page makes no request (its CSP allows none), so what it
// shows besides the code comes from the token's own claims: the reservation, the ticket version and
// when it was issued. The event's name would need a credential the link does not carry.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const OBJECT_ID = /^[0-9a-f]{24}$/;
  // Scanners need four modules of white around the code.
  const QUIET_ZONE = 4;

  function fail(title, message) {
    $("title").textContent = title;
    $("error").textContent = message;
    $("error").hidden = false;
  }

  function decodePart(part) {
    const base64 = part.replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4)));
  }

  /** The ticket's claims when `token` looks like a ticket (its signature is for the door to check), else null. */
  function claimsOf(token) {
    const parts = token.split(".");
    if (parts.length !== 3) return null;
    try {
      const header = decodePart(parts[0]);
      const claims = decodePart(parts[1]);
      const wellFormed = header.typ === "ticket+jwt" && OBJECT_ID.test(claims.t) && OBJECT_ID.test(claims.e) &&
        Number.isSafeInteger(claims.v) && claims.v > 0;
      return wellFormed ? claims : null;
    } catch {
      return null;
    }
  }

  /**
   * The code as one SVG path of dark modules, built without any markup string, sized to a whole number
   * of device pixels per module: a fraction would draw modules of uneven width, which scanners misread.
   */
  function drawCode(token) {
    const qr = window.qrcode(0, "M");
    qr.addData(token, "Byte");
    qr.make();
    const count = qr.getModuleCount();
    const size = count + 2 * QUIET_ZONE;
    let path = "";
    for (let row = 0; row < count; row += 1) {
      for (let col = 0; col < count; col += 1) {
        if (qr.isDark(row, col)) path += `M${col + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`;
      }
    }
    const svg = "http://www.w3.org/2000/svg";
    const element = (name, attributes) => {
      const node = document.createElementNS(svg, name);
      for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
      return node;
    };
    const image = element("svg", { viewBox: `0 0 ${size} ${size}`, "shape-rendering": "crispEdges", "aria-hidden": "true" });
    image.append(element("rect", { width: size, height: size, fill: "#fff" }), element("path", { d: path, fill: "#000" }));
    const fit = () => {
      const ratio = window.devicePixelRatio || 1;
      const pixelsPerModule = Math.max(1, Math.floor(($("code").clientWidth * ratio) / size));
      image.setAttribute("width", String((pixelsPerModule * size) / ratio));
      image.setAttribute("height", String((pixelsPerModule * size) / ratio));
    };
    $("code").append(image);
    fit();
    window.addEventListener("resize", fit);
  }

  function showFacts(claims) {
    $("reservation").textContent = claims.t;
    $("version").textContent = String(claims.v);
    $("issued").textContent = Number.isFinite(claims.iat)
      ? new Date(claims.iat * 1000).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
      : "unknown";
    $("facts").hidden = false;
  }

  // Another ticket's link opened in this tab: start again with it.
  window.addEventListener("hashchange", () => location.reload());

  const token = location.hash.slice(1);
  const claims = token ? claimsOf(token) : null;
  if (!claims) return fail("No ticket here", "This link holds no ticket. Ask for your ticket link again, and open it whole.");
  showFacts(claims);
  if (typeof window.qrcode !== "function") {
    return fail("Show your reservation at the door", "The QR code cannot be drawn here: the staff can find you by the reservation below.");
  }
  drawCode(token);
  $("notes").hidden = false;
})();
