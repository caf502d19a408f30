// The viewer page's routes and runs list (part of /viewer.js: see page-js.ts, which joins the
// parts inside one function scope, so these functions use its helpers: el, getJson, clear, …).
// Kept free of backquotes and dollar-brace (a raw template string).
export const PAGE_JS_RUNS = String.raw`  // --- routes -----------------------------------------------------------------------------
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

`;
