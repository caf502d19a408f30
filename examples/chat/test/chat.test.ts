// examples/chat end to end in Debian's chromium (playwright-core, as the viewer's tests): type a
// message, see the text stream in, approve the email, reload the page while the last answer
// is streaming, and see the run continue from the journal to its outcome.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GenerateOptions, ModelRequest, ModelStreamPart, ProviderAdapterV1 } from "@yoke/protocol";
import { createScriptedModel, say } from "@yoke/testkit";
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_SCRIPT, createChatHarness } from "../src/chat-agent.ts";
import { startChatServer, type ChatServer } from "../src/chat-server.ts";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * The demo's scripted model, streamed one part per event-loop turn (so the page sees text
 * arrive), with the last answer held after its first word until `finishLastAnswer()`.
 */
function pacedModel() {
  const scripted = createScriptedModel(DEMO_SCRIPT);
  let release!: () => void;
  let holding!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = new Promise<void>((resolve) => (holding = resolve));
  let calls = 0;
  const provider: ProviderAdapterV1 = {
    specificationVersion: "v1",
    provider: scripted.provider,
    modelId: scripted.modelId,
    capabilities: scripted.capabilities,
    async generate(request: ModelRequest, options: GenerateOptions = {}) {
      const call = calls++;
      const parts: ModelStreamPart[] = [];
      const response = await scripted.generate(request, { ...options, onStreamPart: (part) => parts.push(part) });
      for (const [index, part] of parts.entries()) {
        if (call === 2 && index === 1) {
          holding();
          await released;
        } else await new Promise((resolve) => setImmediate(resolve));
        options.onStreamPart?.(part);
      }
      return response;
    },
  };
  return { provider, held, finishLastAnswer: release };
}

let browser: Browser;
let server: ChatServer;
let dir: string;
const model = pacedModel();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yoke-chat-"));
  server = await startChatServer({ harness: createChatHarness({ journal: join(dir, "chat.sqlite"), provider: model.provider }) });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("examples/chat in chromium", () => {
  it("streams text, asks before the email, and survives a reload mid-answer", async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(server.url);
    await page.fill("#input", "Tell Ana the weather in Paris by email.");
    await page.press("#input", "Enter");

    // The first answer streams in, word by word, then the email waits for approval.
    const approve = page.locator(".tool[data-state=approval-requested] button.approve");
    await approve.waitFor({ timeout: 20_000 });
    expect(await page.evaluate("window.__chat.deltas")).toBeGreaterThan(5);
    expect(await page.locator(".message.assistant .text").allTextContents()).toEqual(["Let me check the weather in Paris first.", "Now I will email Ana."]);
    expect(await page.locator(".tool[data-tool-call-id=call_weather] .output").textContent()).toBe("sunny and 21°C in Paris");
    expect(await page.locator(".tool[data-tool-call-id=call_email] .reason").textContent()).toBe("an email leaves only when you approve it");
    expect(await page.textContent("#status")).toBe("waiting for approval");

    // Approve: the email is sent, the last answer starts to stream, and is held after its first word.
    await approve.click();
    await model.held;
    await page.locator(".message.assistant .text", { hasText: /^Done: $/ }).waitFor({ timeout: 20_000 });
    expect(await page.locator(".tool[data-tool-call-id=call_email] .output").textContent()).toBe("sent to ana@example.com");

    // Reload mid-answer: the page resumes the chat's stream; the run goes on in the server.
    await page.reload();
    await page.locator(".tool[data-tool-call-id=call_email] .output").waitFor({ timeout: 20_000 });
    model.finishLastAnswer();
    await page.locator("#status[data-status=completed]").waitFor({ timeout: 20_000 });
    expect(await page.locator(".message.user").allTextContents()).toEqual(["Tell Ana the weather in Paris by email."]);
    expect(await page.locator(".message.assistant .text").allTextContents()).toEqual([
      "Let me check the weather in Paris first.",
      "Now I will email Ana.",
      "Done: I emailed Ana that it is sunny and 21°C in Paris.",
    ]);
    expect(await page.locator(".message.assistant").count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("its resume route is what the ai package's client reads as the same finished message", async () => {
    const chatId = "chat_node";
    const second = await startChatServer({
      harness: createChatHarness({ journal: join(dir, "second.sqlite"), provider: createScriptedModel([say("Hello there!")]) }),
    });
    const transport = new DefaultChatTransport({ api: `${second.url}/api/chat` });
    // No run for this chat yet: 204, nothing to resume.
    expect(await transport.reconnectToStream({ chatId })).toBeNull();
    const response = await fetch(`${second.url}/api/chat`, {
      method: "POST",
      body: JSON.stringify({ id: chatId, messages: [{ id: "u", role: "user", parts: [{ type: "text", text: "Hi" }] }] }),
    });
    await response.text();
    const stream = await transport.reconnectToStream({ chatId });
    let message: UIMessage | undefined;
    for await (const state of readUIMessageStream({ stream: stream!, terminateOnError: true })) message = state;
    expect(message?.role).toBe("assistant");
    expect(message?.metadata).toMatchObject({ runId: message?.id, outcome: { status: "completed" } });
    expect(message?.parts).toEqual([{ type: "step-start" }, { type: "text", text: "Hello there!", state: "done" }]);
    await second.close();
  });
});
