// The viewer page's script (served as /viewer.js; the page's CSP allows no inline script).
// Plain browser JavaScript, no framework and no build step. Every value read from the journal
// is put in the page with textContent / createTextNode, never as HTML: the DOM helpers below
// offer no way to set markup. Long runs render lazily: turns in pages as the reader scrolls,
// manifests and raw payloads when their <details> opens, raw events one page at a time.
// (Kept free of backquotes and dollar-brace so it can live in this string.)
import { PAGE_JS_EVENTS } from "./page-js-events.js";

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

  // --- routes -----------------------------------------------------------------------------
  function route() {
    generation++;
    var hash = location.hash || "#/";
    var query = "";
    var q = hash.indexOf("?");
    if (q >= 0) { query = hash.slice(q + 1); hash = hash.slice(0, q); }
    var parts = hash.replace(/^#\/?/, "").split("/");
    var params = new URLSearchParams(query);
    try {
      if (parts[0] === "run" && parts.length >= 3) {
        var tenantId = decodeURIComponent(parts[1]);
        var runId = decodeURIComponent(parts[2]);
        if (parts[3] === "events") return showEvents(tenantId, runId, Math.max(0, Number(params.get("from") || "0") || 0));
        return showRun(tenantId, runId);
      }
    } catch (error) { return showError(error); }
    return showRuns();
  }

  // --- runs list --------------------------------------------------------------------------
  function runStatus(run) { return run.outcome ? String(run.outcome) : String(run.status || "unknown"); }
  function showRuns() {
    var mine = generation;
    crumb.textContent = "";
    document.title = "Yoke runs";
    clear(app);
    app.appendChild(el("p", { className: "muted" }, "Loading runs…"));
    getJson("/api/runs").then(function (body) {
      if (mine !== generation) return;
      var runs = list(body.runs);
      clear(app);
      app.appendChild(el("h1", null, "Runs"));
      var filter = el("input", { type: "search", placeholder: "filter by run, tenant, task or status", "aria-label": "filter runs" });
      app.appendChild(el("div", { className: "filters" }, filter, el("span", { className: "muted" }, runs.length + " run" + (runs.length === 1 ? "" : "s"))));
      var tbody = el("tbody");
      app.appendChild(el("table", { id: "runs" },
        el("thead", null, el("tr", null, el("th", null, "run"), el("th", null, "tenant"), el("th", null, "status"), el("th", null, "task"),
          el("th", { className: "num" }, "turns"), el("th", { className: "num" }, "events"), el("th", null, "started"), el("th", null, "last event"))),
        tbody));
      function render() {
        clear(tbody);
        var needle = filter.value.trim().toLowerCase();
        var shown = 0;
        for (var i = 0; i < runs.length; i++) {
          var run = runs[i];
          var status = runStatus(run);
          if (needle && [run.runId, run.tenantId, run.task, status, run.status].join(" ").toLowerCase().indexOf(needle) < 0) continue;
          shown++;
          tbody.appendChild(el("tr", { "data-run": run.runId },
            el("td", { className: "mono" }, el("a", { href: "#/run/" + runPath(run.tenantId, run.runId) }, run.runId),
              run.parentRunId ? el("div", { className: "muted" }, "child of " + run.parentRunId) : null),
            el("td", { className: "mono" }, run.tenantId),
            el("td", null, badge(status, toneOf(status)),
              run.readError ? el("div", null, badge("chain broken at #" + run.readError.atSeq, "bad")) : null),
            el("td", null, clip(String(run.task || ""), 120)),
            el("td", { className: "num" }, fmtNumber(run.turns)),
            el("td", { className: "num" }, fmtNumber(run.events)),
            el("td", null, fmtTime(run.startedAt)),
            el("td", null, fmtTime(run.lastEventAt))));
        }
        if (shown === 0) tbody.appendChild(el("tr", null, el("td", { className: "muted" }, runs.length ? "no run matches" : "this journal holds no runs")));
      }
      filter.addEventListener("input", render);
      render();
    }).catch(function (error) { if (mine === generation) showError(error); });
  }
  function clip(text, max) { return text.length > max ? text.slice(0, max - 1) + "…" : text; }

  // --- one run ----------------------------------------------------------------------------
  function showRun(tenantId, runId) {
    var mine = generation;
    crumb.textContent = tenantId + " / " + runId;
    document.title = runId + " · Yoke";
    clear(app);
    app.appendChild(el("p", { className: "muted" }, "Loading run…"));
    getJson("/api/runs/" + runPath(tenantId, runId)).then(function (payload) {
      if (mine !== generation) return;
      clear(app);
      renderRun(payload, mine);
    }).catch(function (error) { if (mine === generation) showError(error); });
  }

  function tabs(tenantId, runId, active) {
    var base = "#/run/" + runPath(tenantId, runId);
    return el("div", { className: "tabs" },
      el("a", { className: active === "timeline" ? "active" : null, href: base }, "timeline"),
      el("a", { className: active === "events" ? "active" : null, href: base + "/events" }, "raw events"));
  }

  // Turns come a page at a time from /api/runs/<tenant>/<run>/turns (the server cuts a page at
  // 20 turns or 64 actions), rendered as the reader scrolls to the end of what is shown.
  function renderRun(payload, mine) {
    var view = payload.view || {};
    var header = view.header || {};
    var base = "/api/runs/" + runPath(payload.tenantId, payload.runId);
    app.appendChild(el("h1", null, "Run ", el("span", { className: "mono" }, payload.runId)));
    app.appendChild(tabs(payload.tenantId, payload.runId, "timeline"));
    app.appendChild(chainBanner(view.chain, payload));
    if (payload.cut) app.appendChild(cutNote("this run"));
    app.appendChild(runFacts(payload, header));
    app.appendChild(usagePanel(view));
    var index = list(view.turns);
    var shownTurns = index.filter(shownTurn).length;
    app.appendChild(el("h2", null, "Timeline · " + fmtNumber(header.turns) + " turn" + (header.turns === 1 ? "" : "s") + " · " + fmtNumber(view.actionCount) + " actions"));
    var timeline = el("section", { id: "timeline", "aria-label": "timeline of turns", "data-turns": String(shownTurns), "data-rendered": "0" });
    app.appendChild(timeline);
    var next = 0;
    var rendered = 0;
    var loading = false;
    var more = el("button", { className: "more", type: "button" }, "show more turns");
    var extras = runExtras(view);
    var observer = null;
    function loadPage(first) {
      if (loading || next >= index.length) return;
      loading = true;
      more.textContent = "loading turns…";
      getJson(base + "/turns?from=" + next).then(function (page) {
        if (mine !== generation) return;
        var actions = {};
        list(page.actions).forEach(function (action) { actions[action.actionId] = action; });
        var fragment = document.createDocumentFragment();
        if (page.cut) fragment.appendChild(cutNote("these turns"));
        list(page.turns).forEach(function (turn) {
          if (!shownTurn(turn)) return;
          fragment.appendChild(turnCard(turn, actions));
          rendered++;
        });
        timeline.appendChild(fragment);
        next = page.next > next ? page.next : index.length;
        timeline.setAttribute("data-rendered", String(rendered));
        loading = false;
        if (next >= index.length) {
          more.remove();
          if (observer) observer.disconnect();
          if (extras) app.appendChild(extras);
          extras = null;
        } else {
          more.textContent = "show more turns (" + (shownTurns - rendered) + " left)";
          // Observing again reports where the button is now: a short page leaves it in view.
          if (observer) { observer.unobserve(more); observer.observe(more); }
        }
        if (first) {
          timeline.setAttribute("data-ready", "true");
          // For bench/viewer-open.ts: the time from navigation to the first turns on screen.
          if (window.performance && performance.mark) performance.mark("yoke:timeline-rendered");
        }
      }).catch(function (error) {
        loading = false;
        if (mine !== generation) return;
        more.textContent = "could not load turns: " + (error && error.message ? error.message : String(error)) + " — retry";
        if (first) timeline.setAttribute("data-ready", "true");
      });
    }
    more.addEventListener("click", function () { loadPage(false); });
    if (shownTurns === 0) {
      timeline.appendChild(el("p", { className: "muted" }, "no turns"));
      timeline.setAttribute("data-ready", "true");
      if (extras) app.appendChild(extras);
      return;
    }
    app.appendChild(more);
    loadPage(true);
    if ("IntersectionObserver" in window) {
      observer = new IntersectionObserver(function (entries) {
        if (mine !== generation || next >= index.length) { observer.disconnect(); return; }
        if (entries.some(function (entry) { return entry.isIntersecting; })) loadPage(false);
      }, { rootMargin: "400px" });
      observer.observe(more);
    }
  }
  // The preamble (index 0: run.started and what precedes the first turn) is shown only when it holds something.
  function shownTurn(turn) {
    if (turn.index > 0) return true;
    var count = function (value) { return typeof value === "number" ? value : list(value).length; };
    return count(turn.modelCalls) + count(turn.actions !== undefined ? turn.actions : turn.actionIds) + count(turn.inputs) + count(turn.rejections) > 0;
  }

  function chainBanner(chain, payload) {
    chain = chain || {};
    if (!chain.checked) return el("div", { id: "chain", className: "banner", role: "status", "data-chain": "unchecked" }, "Hash chain not checked.");
    if (chain.ok) {
      return el("div", { id: "chain", className: "banner ok", role: "status", "data-chain": "ok" },
        "Hash chain verified: " + fmtNumber(chain.events) + " events, head " + String(chain.headHash || "").slice(0, 16) + "…");
    }
    return el("div", { id: "chain", className: "banner bad", role: "alert", "data-chain": "broken", "data-first-bad-seq": String(chain.firstBadSeq) },
      "Tampered chain: verification fails at event #" + chain.firstBadSeq + " (" + chain.reason + ").",
      el("span", { className: "detail" }, String(chain.message || "")),
      el("span", { className: "detail" }, "Shown: the " + fmtNumber(payload.inspected) + " events before #" + chain.firstBadSeq + ". Nothing from #" + chain.firstBadSeq + " on can be trusted."));
  }

  function runFacts(payload, header) {
    var outcome = header.outcome;
    var status = outcome && outcome.status ? outcome.status : header.status || "unknown";
    var facts = el("div", { className: "facts", id: "run-facts" },
      el("span", null, "tenant ", el("b", { className: "mono" }, payload.tenantId)),
      el("span", null, "status ", badge(String(status), toneOf(status)), outcome && header.status && header.status !== "finished" ? [" ", badge(header.status, toneOf(header.status))] : null),
      el("span", null, "turns ", el("b", null, fmtNumber(header.turns)), header.maxTurns ? el("span", { className: "muted" }, " of " + header.maxTurns) : null),
      el("span", null, "events ", el("b", null, fmtNumber(header.events))),
      el("span", null, "started ", el("b", null, fmtTime(header.startedAt))),
      el("span", null, "last event ", el("b", null, fmtTime(header.lastEventAt))),
      header.parent ? el("span", null, "parent ", el("a", { className: "mono", href: "#/run/" + runPath(payload.tenantId, header.parent.runId) }, header.parent.runId)) : null,
      header.release ? el("span", { className: "muted" }, "runtime " + header.release.runtime + " · schema v" + header.release.eventSchemaVersion) : null);
    var wrap = el("div", null, facts);
    if (outcome) {
      var detail = [];
      for (var key in outcome) if (key !== "status" && Object.prototype.hasOwnProperty.call(outcome, key)) detail.push([key, outcome[key]]);
      if (detail.length) wrap.appendChild(block("outcome", kv(detail)));
    }
    if (header.task) wrap.appendChild(block("task", pre(String(header.task))));
    if (header.systemPrompt) wrap.appendChild(lazyDetails("system prompt", function () { return pre(String(header.systemPrompt)); }));
    if (list(header.tools).length) wrap.appendChild(el("div", { className: "muted" }, "tools: " + header.tools.join(", ")));
    return wrap;
  }

  function tokensOf(usage) { return Number((usage && usage.inputTokens) || 0) + Number((usage && usage.outputTokens) || 0); }
  function usagePanel(view) {
    var usage = view.usage || {};
    var turns = list(view.turns).filter(function (turn) { return turn.index > 0; });
    var panel = el("section", { className: "usage", id: "usage", "aria-label": "usage and cost" });
    panel.appendChild(el("div", { className: "facts" },
      el("span", null, "input tokens ", el("b", null, fmtNumber(usage.inputTokens))),
      el("span", null, "output tokens ", el("b", null, fmtNumber(usage.outputTokens))),
      usage.cacheReadTokens ? el("span", null, "cache read ", el("b", null, fmtNumber(usage.cacheReadTokens))) : null,
      usage.cacheWriteTokens ? el("span", null, "cache write ", el("b", null, fmtNumber(usage.cacheWriteTokens))) : null,
      el("span", { id: "run-cost" }, "cost ", el("b", null, usage.cost === undefined || usage.cost === null ? "not priced" : fmtMicro(usage.cost, usage.currency)))));
    if (turns.length > 0) {
      var costs = turns.map(function (turn) { return typeof turn.cost === "number" ? turn.cost : 0; });
      var priced = costs.some(function (c) { return c > 0; });
      panel.appendChild(el("div", { className: "muted" }, "tokens per turn (blue)" + (priced ? ", cost per turn (amber)" : "") + ", turn 1 → " + turns.length));
      panel.appendChild(bars(turns.map(function (turn) { return tokensOf(turn.usage); }), "", "tokens"));
      if (priced) panel.appendChild(bars(costs, "cost", "micro-" + (usage.currency || "units")));
    }
    var budget = view.budget;
    if (budget) {
      panel.appendChild(lazyDetails("budget " + budget.budgetId + ": " + fmtNumber(budget.reservationCount) + " reservations, " + budget.open + " open, " + budget.overshoots + " overshoots", function () {
        var limits = budget.limits || {};
        var charged = budget.charged || {};
        var rows = Object.keys(limits).map(function (dimension) {
          return el("tr", null, el("td", null, dimension), el("td", { className: "num" }, fmtNumber(charged[dimension] || 0)), el("td", { className: "num" }, fmtNumber(limits[dimension])));
        });
        return el("table", { className: "budget" }, el("thead", null, el("tr", null, el("th", null, "dimension"), el("th", { className: "num" }, "charged"), el("th", { className: "num" }, "limit"))), el("tbody", null, rows));
      }));
    }
    return panel;
  }
  function fmtMicro(value, currency) {
    if (typeof value !== "number" || !isFinite(value)) return "–";
    var units = value / 1e6;
    return (currency ? currency + " " : "") + units.toFixed(units !== 0 && Math.abs(units) < 0.01 ? 6 : 4);
  }
  // One bar per turn, bucketed so a long run still draws at most 300 bars.
  function bars(values, className, unit) {
    var buckets = Math.min(values.length, 300);
    var size = values.length / buckets;
    var sums = [];
    for (var b = 0; b < buckets; b++) {
      var sum = 0;
      for (var i = Math.floor(b * size); i < Math.floor((b + 1) * size); i++) sum += values[i];
      sums.push(sum);
    }
    var max = Math.max.apply(null, sums.concat([1e-12]));
    var chart = el("div", { className: "bars", role: "img", "aria-label": unit + " per turn" });
    for (var j = 0; j < sums.length; j++) {
      var first = Math.floor(j * size) + 1;
      var last = Math.floor((j + 1) * size);
      var bar = el("div", { className: "bar " + className, title: (first === last ? "turn " + first : "turns " + first + "–" + last) + ": " + fmtNumber(sums[j]) + " " + unit });
      bar.style.height = Math.max(1, Math.round((sums[j] / max) * 100)) + "%";
      chart.appendChild(bar);
    }
    return chart;
  }

  function turnCard(turn, actions) {
    var calls = list(turn.modelCalls);
    var ids = list(turn.actionIds);
    var head = el("div", { className: "turn-head" },
      el("span", { className: "title" }, turn.index === 0 ? "Before the first turn" : "Turn " + turn.index),
      el("span", { className: "muted mono" }, "#" + turn.firstSeq + "–#" + turn.lastSeq),
      el("span", null, calls.length + " model call" + (calls.length === 1 ? "" : "s")),
      el("span", null, ids.length + " action" + (ids.length === 1 ? "" : "s")),
      el("span", { className: "muted" }, fmtNumber(Number((turn.usage && turn.usage.inputTokens) || 0)) + " in / " + fmtNumber(Number((turn.usage && turn.usage.outputTokens) || 0)) + " out tokens"),
      typeof turn.cost === "number" ? el("span", { className: "muted" }, "cost " + fmtMicro(turn.cost, turn.currency)) : null,
      el("span", { className: "muted" }, fmtTime(turn.at)));
    var body = el("div", { className: "turn-body" });
    list(turn.inputs).forEach(function (input) { body.appendChild(block("input #" + input.seq + " from " + input.source, pre(String(input.text)))); });
    for (var i = 0; i < calls.length; i++) body.appendChild(modelCall(calls[i]));
    list(turn.rejections).forEach(function (rejection) {
      body.appendChild(el("div", { className: "action rejected", "data-state": "rejected" },
        el("div", { className: "action-head" }, el("span", { className: "tool" }, rejection.toolName), badge("rejected " + rejection.code, "bad"), el("span", { className: "muted mono" }, "#" + rejection.seq)),
        pre(String(rejection.message), "untrusted-text")));
    });
    for (var j = 0; j < ids.length; j++) if (actions[ids[j]]) body.appendChild(actionCard(actions[ids[j]]));
    return el("article", { className: "turn", "data-turn": String(turn.index) }, head, body);
  }

  function modelCall(call) {
    var node = el("div", { className: "block model-call", "data-request-hash": String(call.requestHash || "") });
    node.appendChild(el("div", { className: "label" }, "Model call #" + call.requestedSeq + (call.requestInTurn ? " (continuation " + call.requestInTurn + ")" : "")));
    node.appendChild(el("div", { className: "muted mono" }, "request " + call.requestHash + " · " + call.messageCount + " messages" + (typeof call.cost === "number" ? " · cost " + call.cost + " micro-units" : "")));
    if (call.manifest) node.appendChild(lazyDetails("manifest #" + (call.compiledSeq === undefined ? "?" : call.compiledSeq) + ": what the model saw — " + manifestSummary(call.manifest), function () { return manifestBody(call.manifest); }, "manifest"));
    list(call.failures).forEach(function (failure) {
      node.appendChild(el("div", { className: "error" }, "#" + failure.seq + " attempt " + failure.attempt + " failed: " + failure.code + " — " + failure.message + (failure.retrying ? " (retried)" : "")));
    });
    if (call.response) node.appendChild(responseBody(call.response));
    else if (!list(call.failures).length) node.appendChild(el("div", { className: "muted" }, "no response journaled"));
    return node;
  }
  function manifestSummary(manifest) {
    var counts = manifest.counts || {};
    var trust = manifest.trust || {};
    return fmtNumber(counts.included) + " included, " + fmtNumber(counts.truncated) + " truncated, " + fmtNumber(counts.omitted) + " omitted, " + fmtNumber(counts.compacted) + " compacted; trust: " +
      Object.keys(trust).map(function (label) { return label + " " + trust[label]; }).join(", ");
  }
  function manifestBody(manifest) {
    var wrap = el("div", { className: "manifest-body" });
    wrap.appendChild(kv([["model", manifest.model], ["tokenizer", manifest.tokenizer], ["revision", "manifest " + manifest.revision + ", context " + manifest.contextRevision],
      ["request bytes", fmtNumber(manifest.requestBytes)], ["kept from the previous manifest", fmtNumber(manifest.kept) + " items"],
      ["artifacts", manifest.artifacts ? fmtNumber(manifest.artifacts) : ""], ["compactions", manifest.compactions ? fmtNumber(manifest.compactions) : ""]]));
    var items = list(manifest.items);
    var tbody = el("tbody");
    items.forEach(function (item) {
      tbody.appendChild(el("tr", { "data-item": item.id, "data-decision": item.decision },
        el("td", { className: "mono" }, item.id),
        el("td", null, item.kind),
        el("td", null, item.section),
        el("td", null, badge(item.trust, /untrusted|tool_output|model/.test(item.trust) ? "untrusted" : "trusted")),
        el("td", null, badge(item.decision + (item.added ? "" : " (earlier)"), item.decision === "included" ? "" : "warn")),
        el("td", null, item.reason || "", list(item.truncations).map(function (cut) { return el("div", { className: "muted" }, "part " + cut.part + ": kept " + fmtNumber(cut.keptBytes) + " of " + fmtNumber(cut.originalBytes) + " bytes"); })),
        el("td", { className: "num" }, fmtNumber(item.tokens))));
    });
    if (!items.length) tbody.appendChild(el("tr", null, el("td", { className: "muted" }, "no item added, every item rendered whole")));
    wrap.appendChild(block("items added by this compile, and every item not rendered whole",
      el("table", { className: "manifest-items" }, el("thead", null, el("tr", null, el("th", null, "item"), el("th", null, "kind"), el("th", null, "section"), el("th", null, "trust label"), el("th", null, "decision"), el("th", null, "reason"), el("th", { className: "num" }, "tokens"))), tbody)));
    var allocation = manifest.allocation;
    if (allocation) {
      var sections = allocation.sections || {};
      wrap.appendChild(block("token allocation", el("div", { className: "allocation" }, kv([["context window", fmtNumber(allocation.contextWindow)], ["output reserve", fmtNumber(allocation.outputReserve)],
        ["mandatory", fmtNumber(allocation.mandatory)], ["overhead", fmtNumber(allocation.overhead)], ["used", fmtNumber(allocation.used)], ["free", fmtNumber(allocation.free)]]
        .concat(Object.keys(sections).map(function (name) { return ["section " + name, fmtNumber(sections[name])]; }))))));
    }
    var tools = list(manifest.tools);
    if (tools.length) wrap.appendChild(block("tools offered", el("div", null, tools.map(function (tool) { return el("span", { className: "badge" }, tool.name + " · " + tool.trust + " · " + fmtNumber(tool.tokens) + " tokens"); }))));
    return wrap;
  }
  function responseBody(response) {
    var node = el("div", { className: "response", "data-stop-reason": String(response.stopReason) });
    node.appendChild(el("div", null, "response #" + response.seq + " ", badge(String(response.stopReason), ""),
      el("span", { className: "muted" }, " " + fmtNumber(response.usage && response.usage.inputTokens) + " in / " + fmtNumber(response.usage && response.usage.outputTokens) + " out · " + response.provider + " " + response.model + " · " + fmtNumber(response.latencyMs) + " ms")));
    list(response.parts).forEach(function (part) {
      if (part.type === "text" || part.type === "refusal" || part.type === "server-tool") node.appendChild(el("div", { className: "part" }, el("span", { className: "kind" }, part.type), pre(String(part.text || ""))));
      else if (part.type === "tool-call") node.appendChild(el("div", { className: "part" }, el("span", { className: "kind" }, "tool call"), el("span", { className: "mono" }, part.toolName), el("span", { className: "muted mono" }, " " + part.toolCallId + (part.truncated ? " (arguments clipped)" : "") + (part.withheld ? " (withheld: the response was refused; not run)" : "")), pre(String(part.arguments || ""))));
      else node.appendChild(el("div", { className: "part" }, el("span", { className: "kind" }, part.type)));
    });
    return node;
  }

  function actionCard(action) {
    var steps = list(action.steps);
    var node = el("div", { className: "action", "data-action": action.actionId, "data-state": action.state });
    node.appendChild(el("div", { className: "action-head" },
      el("span", { className: "tool" }, action.toolName),
      el("span", { className: "muted mono" }, action.actionId),
      badge(action.sideEffect, ""),
      badge(action.state, toneOf(action.state)),
      action.authorization ? el("span", { className: "muted" }, "authorized by " + action.authorization.rule + (action.authorization.approvalId ? " (" + action.authorization.approvalId + ")" : "")) : null));
    var strip = el("div", { className: "strip", role: "list", "aria-label": "action states" });
    steps.forEach(function (step, i) {
      if (i > 0) strip.appendChild(el("span", { className: "arrow", "aria-hidden": "true" }, "→"));
      strip.appendChild(el("span", { className: "state " + String(step.state).replace(/[^a-z_]/gi, ""), role: "listitem", "data-state": step.state, title: step.event + " · attempt " + step.attempt + " · " + fmtTime(step.at) },
        step.state, el("span", { className: "seq" }, "#" + step.seq)));
    });
    node.appendChild(strip);
    node.appendChild(lazyDetails("arguments", function () { return pre(action.input); }));
    var attempts = list(action.attempts);
    if (attempts.length) {
      node.appendChild(lazyDetails(attempts.length + " attempt" + (attempts.length === 1 ? "" : "s") + ": " + attempts.map(function (a) { return a.outcome || "no outcome"; }).join(", "), function () {
        return attempts.map(function (attempt) {
          return block("attempt " + attempt.attempt, kv([["attempt id", attempt.attemptId], ["leased", attempt.leasedSeq === undefined ? "" : "#" + attempt.leasedSeq],
            ["executing", attempt.executingSeq === undefined ? "" : "#" + attempt.executingSeq], ["outcome", attempt.outcome ? attempt.outcome + " #" + attempt.outcomeSeq : "none journaled (cut by a crash, or still running)"],
            ["deadline", attempt.deadlineAt === undefined ? "" : fmtTime(attempt.deadlineAt)], ["duration", attempt.durationMs === undefined ? "" : fmtNumber(attempt.durationMs) + " ms"],
            ["detail", attempt.detail], ["receipt", attempt.receipt === undefined ? "" : json(attempt.receipt)], ["budget reservation", attempt.reservationId]]));
        });
      }, "attempts"));
    }
    var reconciliations = list(action.reconciliations);
    if (reconciliations.length) node.appendChild(block("reconciliation", reconciliations.map(function (r) { return el("div", { className: "reconciliation" }, "#" + r.seq + " ", badge(r.verdict, toneOf(r.verdict)), r.receipt === undefined ? null : pre(r.receipt)); })));
    var compensations = list(action.compensations);
    if (compensations.length) node.appendChild(block("compensation", compensations.map(function (c) { return el("div", null, "#" + c.seq + " ", badge(c.step, toneOf(c.step)), c.detail ? " " + c.detail : null); })));
    if (action.result) node.appendChild(block("result shown to the model", resultBody(action.result)));
    if (action.receipt !== undefined && action.receipt !== null) node.appendChild(block("receipt", pre(action.receipt)));
    return node;
  }
  // A tool result is untrusted data: shown as text in a <pre>, whatever it contains.
  function resultBody(result) {
    return el("div", { className: "tool-result" }, badge(result.status + (result.errorCode ? " " + result.errorCode : ""), result.status === "ok" ? "good" : "bad"),
      result.truncated ? el("span", { className: "muted" }, " (truncated)") : null, pre(String(result.text), "untrusted-text"));
  }

  function runExtras(view) {
    var wrap = el("section", { id: "run-extras" });
    function section(title, rows, render) {
      if (!rows.length) return;
      wrap.appendChild(el("h2", null, title + " (" + rows.length + ")"));
      wrap.appendChild(el("div", { className: "usage" }, rows.map(render)));
    }
    section("Approvals", list(view.approvals), function (a) {
      return el("div", null, el("span", { className: "mono" }, a.approvalId), " for ", el("span", { className: "mono" }, a.actionId), " #" + a.requestedSeq + " ",
        a.decision ? badge(a.decision.kind + (a.decision.by ? " by " + a.decision.by : ""), toneOf(a.decision.kind)) : badge("pending", "warn"), a.decision && a.decision.reason ? " " + a.decision.reason : null);
    });
    section("Verifier runs", list(view.verifierRuns), function (v) {
      return el("div", null, el("span", { className: "mono" }, v.verifierId), " attempt " + v.attempt + " #" + v.startedSeq + " ",
        v.finished ? badge(v.finished.passed ? "passed" : "failed", v.finished.passed ? "good" : "bad") : badge("no verdict", "warn"), v.finished && v.finished.reason ? " " + v.finished.reason : null);
    });
    section("Waits", list(view.waits), function (w) { return el("div", null, "#" + w.seq + " ", badge(w.kind, "warn"), " " + w.reason); });
    section("Interrupts", list(view.interrupts), function (i) { return el("div", null, "#" + i.seq + " " + i.kind + " " + i.interruptId + " (inbox #" + i.inboxSeq + ")"); });
    section("Loop detections", list(view.loopDetections), function (l) { return el("div", null, "#" + l.seq + " " + l.toolName + " " + l.pattern + " ×" + l.count + " → " + l.response); });
    section("Failures", list(view.failures), function (f) { return el("div", { className: "error" }, "#" + f.seq + " " + f.code + ": " + f.message + (f.retryable ? " (retryable)" : "")); });
    section("Events the run model could not place", list(view.problems), function (p) { return el("div", { className: "error" }, "#" + p.seq + " " + p.message); });
    return wrap.firstChild ? wrap : null;
  }

`;

const PAGE_JS_START = `  window.addEventListener("hashchange", route);
  route();
})();
`;

/** The viewer page's script: the main part, the raw-events view, and the start. */
export const PAGE_JS = PAGE_JS_MAIN + PAGE_JS_EVENTS + PAGE_JS_START;
