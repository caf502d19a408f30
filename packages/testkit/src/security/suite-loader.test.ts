import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { agentDojoSuite } from "./data.js";
import { loadSuite } from "./suite-loader.js";

describe("loadSuite", () => {
  it.for(["banking", "slack"])("reads a suite folder (%s, with its extra injection tasks) into the same data as the bundled suite", (name) => {
    const loaded = loadSuite(fileURLToPath(new URL(`./data/${name}`, import.meta.url)));
    const bundled = agentDojoSuite(name);
    expect(loaded.name).toBe(name);
    expect(loaded.injectionTasks.map((task) => task.id)).toEqual(bundled.injectionTasks.map((task) => task.id));
    expect(JSON.parse(JSON.stringify(loaded))).toEqual(JSON.parse(JSON.stringify(bundled)));
  });

  it("refuses a name no bundled suite has, typed", () => {
    expect(() => agentDojoSuite("workspace-typo")).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
