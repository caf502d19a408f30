// The viewer page's script (served as /viewer.js; the page's CSP allows no inline script).
// Plain browser JavaScript, no framework and no build step. Every value read from the journal
// is put in the page with textContent / createTextNode, never as HTML: the DOM helpers below
// offer no way to set markup. Long runs render lazily: turns in pages as the reader scrolls,
// manifests and raw payloads when their <details> opens, raw events one page at a time.
// (Kept free of backquotes and dollar-brace so it can live in this string.)
import { PAGE_JS_CARDS } from "./page-js-cards.js";
import { PAGE_JS_EVENTS } from "./page-js-events.js";
import { PAGE_JS_RUN } from "./page-js-run.js";
import { PAGE_JS_RUNS } from "./page-js-runs.js";

// The opening of the script's one function scope: its state, the DOM helpers every part uses, data.
const PAGE_JS_MAIN = String.raw`"use strict";
(function () {
  var TURNS_PER_PAGE = 40;
  var EVENTS_PER_PAGE = 100;
  var app = document.getElementById("app");
  var crumb = document.getElementById("crumb");
  var generation = 0;

  // --- DOM helpers: text only -------------------------------------------------------------
  function el(tag, props) {
    var node = document.createElement(tag);
    if (props) {
      for (var key in props) {
        if (!Object.prototype.hasOwnProperty.call(props, key)) continue;
        var value = props[key];
        if (value === undefined || value === null || value === false) continue;
        if (key === "className") node.className = value;
        else if (key === "text") node.textContent = String(value);
        else if (key === "href") node.setAttribute("href", safeHref(value));
        else if (key === "onclick") node.addEventListener("click", value);
        else if (key.indexOf("data-") === 0 || key === "title" || key === "role" || key === "id" || key === "type" || key === "placeholder" || key === "aria-label" || key === "aria-hidden" || key === "open") node.setAttribute(key, String(value));
      }
    }
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function append(node, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) { for (var i = 0; i < child.length; i++) append(node, child[i]); return; }
    if (typeof child === "object" && child.nodeType) { node.appendChild(child); return; }
    node.appendChild(document.createTextNode(String(child)));
  }
  // Links are the viewer's own routes only.
  function safeHref(value) { var text = String(value); return text.charAt(0) === "#" ? text : "#/"; }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function isObject(value) { return typeof value === "object" && value !== null && !Array.isArray(value); }
  function pick(object) {
    if (!isObject(object)) return undefined;
    for (var i = 1; i < arguments.length; i++) { var value = object[arguments[i]]; if (value !== undefined && value !== null) return value; }
    return undefined;
  }
  function list(value) { return Array.isArray(value) ? value : []; }
  function json(value) { try { return JSON.stringify(value, null, 2); } catch (error) { return String(value); } }
  function pre(value, className) { return el("pre", { className: className }, typeof value === "string" ? value : json(value)); }
  function fmtNumber(value) { return typeof value === "number" && isFinite(value) ? value.toLocaleString("en-US") : "–"; }
  function fmtTime(value) {
    if (typeof value !== "number" || !isFinite(value)) return "–";
    try { return new Date(value).toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z"); } catch (error) { return String(value); }
  }
  // The server keeps every answer under 1 MiB: what did not fit arrives cut, and says so.
  function cutNote(what) { return el("p", { className: "muted", "data-cut": "true" }, what + ": some long values were cut to keep each answer under 1 MiB; the raw events hold them whole."); }
  function badge(text, tone) { return el("span", { className: "badge" + (tone ? " " + tone : "") }, text); }
  function toneOf(status) {
    var text = String(status || "");
    if (/verified|success|committed|completed|ok|reconciled|compensated|passed|trusted/.test(text) && !/fail|unverified|untrusted/.test(text)) return "good";
    if (/fail|denied|rejected|broken|tamper|error|cancel/.test(text)) return "bad";
    if (/uncertain|wait|escalat|budget|refus|approval|running|unknown|untrusted/.test(text)) return "warn";
    return "";
  }
  function kv(pairs) {
    var dl = el("dl", { className: "kv" });
    for (var i = 0; i < pairs.length; i++) {
      if (pairs[i][1] === undefined || pairs[i][1] === null || pairs[i][1] === "") continue;
      dl.appendChild(el("dt", null, pairs[i][0]));
      var value = pairs[i][1];
      dl.appendChild(el("dd", null, typeof value === "object" && !value.nodeType ? json(value) : value));
    }
    return dl;
  }
  // A <details> whose body is built the first time it opens.
  function lazyDetails(summary, build, className) {
    var details = el("details", { className: className }, el("summary", null, summary));
    var built = false;
    details.addEventListener("toggle", function () {
      if (built || !details.open) return;
      built = true;
      try { append(details, build()); } catch (error) { append(details, el("p", { className: "error" }, "could not render: " + error.message)); }
    });
    return details;
  }
  function block(label) {
    var node = el("div", { className: "block" }, el("div", { className: "label" }, label));
    for (var i = 1; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }

  // --- data -------------------------------------------------------------------------------
  function getJson(path) {
    return fetch(path, { headers: { accept: "application/json" }, credentials: "same-origin" }).then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) throw new Error(body && body.error ? body.error.code + ": " + body.error.message : "HTTP " + response.status);
        return body;
      });
    });
  }
  function runPath(tenantId, runId) { return encodeURIComponent(tenantId) + "/" + encodeURIComponent(runId); }
  function showError(error) { clear(app); app.appendChild(el("p", { className: "error", role: "alert" }, String(error && error.message ? error.message : error))); }

`;

const PAGE_JS_START = `  window.addEventListener("hashchange", route);
  route();
})();
`;

/** The viewer page's script: its opening, the runs list, one run, the cards, the raw-events view, and the start. */
export const PAGE_JS = PAGE_JS_MAIN + PAGE_JS_RUNS + PAGE_JS_RUN + PAGE_JS_CARDS + PAGE_JS_EVENTS + PAGE_JS_START;
