// The raw-events view of the viewer page (part of /viewer.js: see page-js.ts, which joins the
// parts inside one function scope, so these functions use its helpers: el, getJson, lazyDetails, …).
// Kept free of backquotes, dollar-brace and backslashes (a plain template string).
export const PAGE_JS_EVENTS = `  // --- raw events, page by page -----------------------------------------------------------
  function showEvents(tenantId, runId, from) {
    var mine = generation;
    crumb.textContent = tenantId + " / " + runId + " / events";
    document.title = runId + " events · Yoke";
    clear(app);
    app.appendChild(el("p", { className: "muted" }, "Loading events…"));
    getJson("/api/runs/" + runPath(tenantId, runId) + "/events?from=" + from + "&limit=" + EVENTS_PER_PAGE).then(function (page) {
      if (mine !== generation) return;
      clear(app);
      app.appendChild(el("h1", null, "Run ", el("span", { className: "mono" }, runId)));
      app.appendChild(tabs(tenantId, runId, "events"));
      var base = "#/run/" + runPath(tenantId, runId) + "/events?from=";
      // A page ends early when its events are large (the server keeps each answer under 1 MiB): go on from page.next.
      var next = typeof page.next === "number" && page.next > from ? page.next : from + list(page.events).length;
      function pager() {
        return el("div", { className: "pager" },
          from > 0 ? el("a", { href: base + Math.max(0, from - EVENTS_PER_PAGE) }, "← previous") : el("span", { className: "muted" }, "← previous"),
          el("span", null, "events " + (page.events.length ? "#" + from + "–#" + (from + page.events.length - 1) : "none") + " of " + fmtNumber(page.total)),
          next < page.total ? el("a", { href: base + next }, "next →") : el("span", { className: "muted" }, "next →"));
      }
      app.appendChild(pager());
      var tbody = el("tbody");
      list(page.events).forEach(function (event) {
        tbody.appendChild(el("tr", { "data-seq": String(event.seq) },
          el("td", { className: "num mono" }, "#" + event.seq),
          el("td", { className: "mono" }, event.type),
          el("td", null, fmtTime(event.at)),
          el("td", null, event.summary || "", event.cut ? wholeEvent(tenantId, runId, event) : lazyDetails("data", function () { return pre(event.data); }))));
      });
      app.appendChild(el("table", { id: "events" }, el("thead", null, el("tr", null, el("th", { className: "num" }, "seq"), el("th", null, "type"), el("th", null, "at"), el("th", null, "summary and data"))), tbody));
      app.appendChild(pager());
    }).catch(function (error) { if (mine === generation) showError(error); });
  }

  // An event too large for one answer: its data arrives cut; its whole canonical JSON is read
  // a part at a time (the server's slices, each under 1 MiB), shown as text, one part on screen:
  // the reader pages through a multi-megabyte event without the page holding or laying it out.
  function wholeEvent(tenantId, runId, event) {
    var wrap = el("div", { "data-cut-event": String(event.seq) });
    wrap.appendChild(lazyDetails("data (cut: the event is " + fmtNumber(event.cut.bytes) + " bytes)", function () { return pre(event.data); }));
    wrap.appendChild(lazyDetails("the whole event, " + fmtNumber(event.cut.bytes) + " bytes, a part at a time", function () {
      var path = "/api/runs/" + runPath(tenantId, runId) + "/events/" + event.seq + "?offset=";
      var out = el("pre", { className: "untrusted-text event-part" });
      var status = el("span", { className: "muted" }, "loading…");
      var previous = el("button", { type: "button", className: "part-previous" }, "← previous part");
      var next = el("button", { type: "button", className: "part-next" }, "next part →");
      var starts = [];
      var nextOffset = null;
      function show(offset) {
        previous.disabled = true;
        next.disabled = true;
        out.removeAttribute("data-offset");
        getJson(path + offset).then(function (part) {
          out.textContent = String(part.text);
          if (starts[starts.length - 1] !== offset) starts.push(offset);
          nextOffset = typeof part.next === "number" && part.next > offset ? part.next : null;
          var end = nextOffset === null ? part.bytes : nextOffset;
          status.textContent = "bytes " + fmtNumber(offset) + "–" + fmtNumber(end) + " of " + fmtNumber(part.bytes);
          previous.disabled = starts.length < 2;
          next.disabled = nextOffset === null;
          out.setAttribute("data-offset", String(offset));
          out.setAttribute("data-last", nextOffset === null ? "true" : "false");
        }).catch(function (error) { status.textContent = "could not load: " + (error && error.message ? error.message : String(error)); });
      }
      previous.addEventListener("click", function () { if (starts.length > 1) { starts.pop(); show(starts[starts.length - 1]); } });
      next.addEventListener("click", function () { if (nextOffset !== null) show(nextOffset); });
      show(0);
      return el("div", null, el("div", { className: "pager" }, previous, status, next), out);
    }));
    return wrap;
  }

`;
