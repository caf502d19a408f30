// The chat page: plain HTML and a script that speaks the AI SDK's UI message stream protocol
// to the server's useChat routes (POST /api/chat, GET /api/chat/:id/stream), folding the
// chunks into messages as useChat does. A React app would use useChat instead of this script;
// the server is the same. No framework, no build step: it works offline.
const SCRIPT = String.raw`
const stored = JSON.parse(localStorage.getItem("chat") || "null");
const chat = stored || { id: "chat_" + Math.random().toString(36).slice(2), messages: [] };
window.__chat = { deltas: 0, chunks: 0, status: "ready" };
const $messages = document.getElementById("messages");
const $status = document.getElementById("status");
let active = {};

function save() { localStorage.setItem("chat", JSON.stringify(chat)); }

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function render() {
  $messages.replaceChildren(...chat.messages.map((message) => {
    const box = el("div", "message " + message.role);
    box.dataset.id = message.id;
    for (const part of message.parts) {
      if (part.type === "text") box.append(el("p", "text", part.text));
      else if (part.type === "reasoning") box.append(el("p", "reasoning", part.text));
      else if (part.type.startsWith("tool-")) box.append(renderTool(message, part));
    }
    if (message.error) box.append(el("p", "error", message.error));
    return box;
  }));
  $status.textContent = window.__chat.status;
  $status.dataset.status = window.__chat.status;
}

function renderTool(message, part) {
  const box = el("div", "tool");
  box.dataset.state = part.state;
  box.dataset.toolCallId = part.toolCallId;
  box.append(el("b", "", part.type.slice(5)), el("code", "input", JSON.stringify(part.input ?? part.inputText ?? "")));
  if (part.state === "output-available") box.append(el("span", "output", typeof part.output === "string" ? part.output : JSON.stringify(part.output)));
  if (part.state === "output-error") box.append(el("span", "error", part.errorText));
  if (part.state === "output-denied") box.append(el("span", "denied", "denied"));
  if (part.state === "approval-requested") {
    box.append(el("span", "reason", part.approval.reason || "needs your approval"));
    for (const approved of [true, false]) {
      const button = el("button", approved ? "approve" : "deny", approved ? "Approve" : "Deny");
      button.onclick = () => answer(message, part, approved);
      box.append(button);
    }
  }
  return box;
}

function toolPart(message, toolCallId, toolName) {
  let part = message.parts.find((item) => item.toolCallId === toolCallId);
  if (!part) message.parts.push((part = { type: "tool-" + toolName, toolCallId, state: "input-streaming", inputText: "" }));
  return part;
}

function apply(message, chunk) {
  window.__chat.chunks++;
  switch (chunk.type) {
    case "start":
      if (chunk.messageId) message.id = chunk.messageId;
      message.metadata = { ...message.metadata, ...chunk.messageMetadata };
      break;
    case "start-step": message.parts.push({ type: "step-start" }); break;
    case "reset-step": message.parts.splice(message.parts.map((part) => part.type).lastIndexOf("step-start") + 1); active = {}; break;
    case "text-start": case "reasoning-start":
      message.parts.push((active[chunk.id] = { type: chunk.type.slice(0, -6), text: "", state: "streaming" }));
      break;
    case "text-delta": case "reasoning-delta":
      active[chunk.id].text += chunk.delta;
      if (chunk.type === "text-delta") window.__chat.deltas++;
      break;
    case "text-end": case "reasoning-end": active[chunk.id].state = "done"; break;
    case "tool-input-start": toolPart(message, chunk.toolCallId, chunk.toolName); break;
    case "tool-input-delta": toolPart(message, chunk.toolCallId).inputText += chunk.inputTextDelta; break;
    case "tool-input-available": Object.assign(toolPart(message, chunk.toolCallId, chunk.toolName), { state: "input-available", input: chunk.input }); break;
    case "tool-input-error": Object.assign(toolPart(message, chunk.toolCallId, chunk.toolName), { state: "output-error", errorText: chunk.errorText }); break;
    case "tool-approval-request": Object.assign(toolPart(message, chunk.toolCallId), { state: "approval-requested", approval: { id: chunk.approvalId, reason: chunk.reason } }); break;
    case "tool-approval-response": {
      const part = message.parts.find((item) => item.approval && item.approval.id === chunk.approvalId);
      if (part) Object.assign(part, { state: "approval-responded", approval: { ...part.approval, approved: chunk.approved } });
      break;
    }
    case "tool-output-available": Object.assign(toolPart(message, chunk.toolCallId), { state: "output-available", output: chunk.output }); break;
    case "tool-output-error": Object.assign(toolPart(message, chunk.toolCallId), { state: "output-error", errorText: chunk.errorText }); break;
    case "tool-output-denied": toolPart(message, chunk.toolCallId).state = "output-denied"; break;
    case "error": message.error = chunk.errorText; break;
    case "finish": message.metadata = { ...message.metadata, ...chunk.messageMetadata }; break;
  }
}

// Reads a UI message stream response into the assistant message (a new one, or the one it continues).
async function read(response, continuing) {
  if (response.status === 204) return;
  if (!response.ok) throw new Error(await response.text());
  let message = continuing || { id: "", role: "assistant", parts: [] };
  if (!continuing) chat.messages.push(message);
  active = {};
  window.__chat.status = "streaming";
  render();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (!event.startsWith("data: ") || event === "data: [DONE]") continue;
      const chunk = JSON.parse(event.slice(6));
      if (chunk.type === "start" && chunk.messageId && chunk.messageId !== message.id) {
        // A replay of a message shown already: rebuilt from the stream, as useChat's resume does.
        const index = chat.messages.findIndex((item) => item.id === chunk.messageId);
        if (index >= 0) { chat.messages.splice(chat.messages.indexOf(message), 1); message = chat.messages[index]; message.parts = []; }
      }
      apply(message, chunk);
      render();
    }
  }
  const meta = message.metadata || {};
  window.__chat.status = meta.outcome ? meta.outcome.status : meta.waiting ? "waiting for " + meta.waiting : "ready";
  save();
  render();
}

async function post(continuing) {
  const response = await fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ id: chat.id, messages: chat.messages, trigger: "submit-message" }),
  });
  await read(response, continuing);
}

async function answer(message, part, approved) {
  Object.assign(part, { state: "approval-responded", approval: { ...part.approval, approved } });
  save();
  render();
  await post(message);
}

document.getElementById("composer").onsubmit = async (event) => {
  event.preventDefault();
  const input = document.getElementById("input");
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  chat.messages.push({ id: "msg_" + chat.messages.length, role: "user", parts: [{ type: "text", text }] });
  save();
  render();
  await post();
};

render();
// After a reload: the chat's run, replayed from the journal and then live (useChat's resume route).
if (stored) fetch("/api/chat/" + encodeURIComponent(chat.id) + "/stream").then((response) => read(response));
`;

export const CHAT_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Yoke chat</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; max-width: 720px; margin: 2rem auto; padding: 0 1rem; }
  .message { margin: .75rem 0; padding: .5rem .75rem; border-radius: 8px; }
  .message.user { background: #eef3ff; }
  .message.assistant { background: #f6f6f6; }
  .reasoning { color: #777; font-style: italic; }
  .tool { border-left: 3px solid #999; padding-left: .5rem; margin: .25rem 0; display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
  .tool[data-state=approval-requested] { border-color: #d80; }
  .tool[data-state=output-available] { border-color: #393; }
  .error { color: #b00; }
  #composer { display: flex; gap: .5rem; }
  #input { flex: 1; padding: .5rem; }
</style>
</head>
<body>
<h1>Yoke chat</h1>
<div id="messages"></div>
<form id="composer"><input id="input" placeholder="Ask something" autocomplete="off"><button>Send</button></form>
<p>Status: <span id="status">ready</span></p>
<script type="module">${SCRIPT}</script>
</body>
</html>
`;
