// node src/main.ts: the chat on http://127.0.0.1:3000 over ./chat.sqlite. With OPENAI_API_KEY,
// a real model answers; without one, the demo's scripted model does.
import { createOpenAIProvider } from "@yoke/provider-openai";
import { createScriptedModel } from "@yoke/testkit";
import { DEMO_SCRIPT, createChatHarness } from "./chat-agent.ts";
import { startChatServer } from "./chat-server.ts";

const provider = process.env.OPENAI_API_KEY ? createOpenAIProvider({ model: "gpt-5-mini" }) : createScriptedModel(DEMO_SCRIPT);
const harness = createChatHarness({ journal: "./chat.sqlite", provider });
const server = await startChatServer({ harness, port: Number(process.env.PORT ?? 3000) });
console.log(`chat on ${server.url}`);
