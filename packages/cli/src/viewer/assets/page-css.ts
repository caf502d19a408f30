// The viewer page's style sheet (served as /viewer.css).
export const PAGE_CSS = `
:root { --fg: #1d2330; --muted: #667085; --line: #d9dee7; --bg: #f6f7f9; --card: #fff; --ok: #137333; --bad: #b3261e; --warn: #9a6700; --info: #1a56db; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--info); text-decoration: none; }
a:hover { text-decoration: underline; }
.top { display: flex; gap: 12px; align-items: baseline; padding: 10px 20px; background: #101828; color: #fff; }
.top a.brand { color: #fff; font-weight: 600; }
.crumb { color: #d0d5dd; font-family: var(--mono); overflow-wrap: anywhere; }
.readonly { margin-left: auto; color: #98a2b3; font-size: 12px; }
main { padding: 16px 20px 60px; max-width: 1280px; }
h1 { font-size: 18px; margin: 4px 0 10px; overflow-wrap: anywhere; }
h2 { font-size: 15px; margin: 18px 0 8px; }
.muted { color: var(--muted); }
.mono, pre, code { font-family: var(--mono); font-size: 12.5px; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0; padding: 6px 8px; background: #f2f4f7; border-radius: 4px; max-height: 360px; overflow: auto; }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; background: #fafbfc; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.filters { display: flex; gap: 8px; margin: 6px 0 10px; }
input[type=search], select { font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 4px; }
.banner { padding: 10px 12px; border-radius: 6px; margin: 8px 0 12px; border: 1px solid; }
.banner.ok { color: var(--ok); background: #e6f4ea; border-color: #b7dfc2; }
.banner.bad { color: #fff; background: var(--bad); border-color: var(--bad); font-weight: 600; }
.banner.bad .detail { font-weight: 400; display: block; margin-top: 4px; }
.facts { display: flex; flex-wrap: wrap; gap: 6px 18px; margin: 6px 0 10px; }
.facts span b { font-weight: 600; }
.badge { display: inline-block; padding: 1px 7px; border-radius: 10px; font-size: 12px; background: #eef2f6; color: var(--fg); border: 1px solid var(--line); }
.badge.good { background: #e6f4ea; color: var(--ok); border-color: #b7dfc2; }
.badge.bad { background: #fde8e6; color: var(--bad); border-color: #f4b8b2; }
.badge.warn { background: #fff4d6; color: var(--warn); border-color: #f1d58a; }
.badge.trusted { background: #e6f4ea; color: var(--ok); }
.badge.untrusted { background: #fff4d6; color: var(--warn); }
.usage { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.bars { display: flex; align-items: flex-end; gap: 1px; height: 70px; margin-top: 8px; border-bottom: 1px solid var(--line); }
.bars .bar { flex: 1 1 0; min-width: 1px; max-width: 18px; background: #7895e6; }
.bars .bar.cost { background: #e3a008; }
.turn { background: var(--card); border: 1px solid var(--line); border-radius: 6px; margin: 10px 0; }
.turn > .turn-head { display: flex; flex-wrap: wrap; gap: 6px 14px; align-items: baseline; padding: 8px 12px; border-bottom: 1px solid var(--line); background: #fafbfc; border-radius: 6px 6px 0 0; }
.turn > .turn-head .title { font-weight: 600; }
.turn-body { padding: 8px 12px; }
.block { margin: 6px 0 10px; }
.block > .label { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .03em; }
details { margin: 4px 0; }
summary { cursor: pointer; }
.part { margin: 4px 0; }
.part .kind { font-size: 12px; color: var(--muted); margin-right: 6px; }
.action { border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; margin: 8px 0; }
.action-head { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: baseline; }
.action-head .tool { font-family: var(--mono); font-weight: 600; }
.strip { display: flex; flex-wrap: wrap; align-items: center; gap: 0; margin: 6px 0; }
.strip .state { padding: 2px 9px; border: 1px solid #b6c3e0; background: #eef3ff; color: #23418f; font-size: 12px; border-radius: 3px; }
.strip .state .seq { color: var(--muted); margin-left: 5px; font-size: 11px; }
.strip .arrow { color: var(--muted); padding: 0 4px; }
.strip .state.committed, .strip .state.compensated, .strip .state.reconciled { background: #e6f4ea; border-color: #9ccfaa; color: var(--ok); }
.strip .state.failed, .strip .state.compensation_failed, .strip .state.rejected { background: #fde8e6; border-color: #f4b8b2; color: var(--bad); }
.strip .state.uncertain, .strip .state.approval_requested, .strip .state.compensating { background: #fff4d6; border-color: #f1d58a; color: var(--warn); }
.strip .state.reconciliation-step { border-style: dashed; background: #f6f1ff; border-color: #b9a6e0; color: #4b2f8f; font-style: italic; }
.strip .state.reconciliation-step.warn { background: #fff4d6; border-color: #f1d58a; color: var(--warn); }
.decision-facts { margin: 4px 0; font-size: 13px; }
.decision-fact { display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: baseline; overflow-wrap: anywhere; }
.decision-fact > .kind { font-size: 12px; color: var(--muted); min-width: 72px; }
.decision-fact .fact-member .mono { margin-left: 2px; }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
.kv > dt { color: var(--muted); }
.kv > dd { margin: 0; overflow-wrap: anywhere; }
.more { display: block; margin: 14px auto; padding: 6px 14px; font: inherit; border: 1px solid var(--line); background: var(--card); border-radius: 4px; cursor: pointer; }
.pager { display: flex; gap: 10px; align-items: center; margin: 8px 0; }
.pager button { font: inherit; padding: 3px 10px; }
.error { color: var(--bad); }
.tabs { display: flex; gap: 14px; margin: 4px 0 8px; }
.tabs a.active { font-weight: 600; color: var(--fg); }
`;
