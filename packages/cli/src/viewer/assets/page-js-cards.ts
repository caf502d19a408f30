// The cards of the viewer page: a turn, its model calls and manifest, an action and its result,
// and the run's approvals, verifier runs, waits and failures (part of /viewer.js: see page-js.ts,
// which joins the parts inside one function scope, so these functions use its helpers: el, pre, …).
// Kept free of backquotes, dollar-brace and backslashes (a plain template string).
export const PAGE_JS_CARDS = `  function turnCard(turn, actions) {
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
        decisionFacts(rejection.decisionFacts),
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

  // A reconciliation is drawn as what it is, with its verdict; the state it left the action in is in its title.
  function stepNode(step) {
    var title = step.event + " · attempt " + step.attempt + " · " + fmtTime(step.at);
    if (step.verdict !== undefined) {
      return el("span", { className: "state reconciliation-step " + toneOf(step.verdict), role: "listitem", "data-state": step.state, "data-verdict": step.verdict, title: title + " · now " + step.state },
        "reconciled: " + step.verdict, el("span", { className: "seq" }, "#" + step.seq));
    }
    return el("span", { className: "state " + String(step.state).replace(/[^a-z_]/gi, ""), role: "listitem", "data-state": step.state, title: title },
      step.state, el("span", { className: "seq" }, "#" + step.seq));
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
      strip.appendChild(stepNode(step));
    });
    node.appendChild(strip);
    append(node, decisionFacts(action.decisionFacts));
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
  // What a policy decision was made on beyond its rule, one line per member journaled with it:
  // the influence on the decision to make the call, and the others (delegation, what the call
  // carries, ...) as JSON whose shape the page does not assume. Every value is text.
  function decisionFacts(facts) {
    var rows = list(facts).filter(function (fact) { return isObject(fact) && typeof fact.name === "string"; });
    if (!rows.length) return null;
    return el("div", { className: "decision-facts" }, rows.map(function (fact) {
      return el("div", { className: "decision-fact", "data-fact": fact.name }, el("span", { className: "kind" }, fact.name),
        fact.name === "influence" && isObject(fact.value) && typeof fact.value.integrity === "string" ? influenceBody(fact.value) : factBody(fact.value));
    }));
  }
  function influenceBody(influence) {
    var lowered = list(influence.loweredBy).filter(isObject);
    return el("span", { "data-integrity": influence.integrity }, badge(influence.integrity, toneOf(influence.integrity)),
      lowered.length ? " lowered by " : null,
      lowered.map(function (item, i) {
        var what = typeof item.toolName === "string" ? item.toolName + " output" : String(item.label);
        return el("span", { className: "lowered-by" }, (i > 0 ? ", " : "") + String(item.itemId) + " (" + what + ")");
      }),
      typeof influence.more === "number" ? " and " + influence.more + " more" : null);
  }
  function factBody(value) {
    if (!isObject(value)) return el("span", { className: "fact-member mono" }, factText(value));
    return Object.keys(value).map(function (key) { return el("span", { className: "fact-member", "data-member": key }, key + " ", el("span", { className: "mono" }, factText(value[key]))); });
  }
  function factText(value) {
    if (typeof value === "string") return value;
    try { return JSON.stringify(value); } catch (error) { return String(value); }
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
        a.decision ? badge(a.decision.kind + (a.decision.by ? " by " + a.decision.by : ""), toneOf(a.decision.kind)) : badge("pending", "warn"), a.decision && a.decision.reason ? " " + a.decision.reason : null,
        el("div", { className: "muted approval-why" }, "asked by rule ", el("span", { className: "mono" }, String(a.rule)), ": " + String(a.reason) + (a.expiresAt === undefined ? "" : "; expires " + fmtTime(a.expiresAt))));
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
