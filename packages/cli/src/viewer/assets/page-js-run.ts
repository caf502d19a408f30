// One run on the viewer page: its header, turns page by page, chain banner, facts and usage (part
// of /viewer.js: see page-js.ts, which joins the parts inside one function scope, so these
// functions use its helpers: el, getJson, lazyDetails, …).
// Kept free of backquotes, dollar-brace and backslashes (a plain template string).
export const PAGE_JS_RUN = `  // --- one run ----------------------------------------------------------------------------
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
      el("span", null, "turns ", el("b", null, fmtNumber(header.turns)), header.turnLimit ? el("span", { className: "muted", id: "turn-limit", title: header.turnLimit < header.maxTurns ? "the budget's turns limit (maxTurns " + header.maxTurns + ")" : "maxTurns" }, " of " + header.turnLimit) : null),
      el("span", null, "events ", el("b", null, fmtNumber(header.events))),
      el("span", null, "started ", el("b", null, fmtTime(header.startedAt))),
      el("span", null, "last event ", el("b", null, fmtTime(header.lastEventAt))),
      header.parent ? el("span", null, "parent ", el("a", { className: "mono", href: "#/run/" + runPath(payload.tenantId, header.parent.runId) }, header.parent.runId)) : null,
      payload.session ? el("span", { id: "run-session" }, "session ", el("b", { className: "mono" }, payload.session.sessionId), payload.session.runs.length > 1 ? [" · runs ", payload.session.runs.map(function (id, index) { return [index ? ", " : "", id === payload.runId ? el("b", { className: "mono" }, id) : el("a", { className: "mono", href: "#/run/" + runPath(payload.tenantId, id) }, id)]; })] : null) : null,
      header.release ? el("span", { className: "muted", id: "release", title: JSON.stringify(header.release) }, "runtime " + header.release.runtime + " · schema v" + header.release.eventSchemaVersion + (header.releasedAt === undefined || header.releasedAt === null ? "" : " · pinned since #" + header.releasedAt)) : null);
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

`;
