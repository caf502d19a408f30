// The registry runs testkit's ToolRegistryV1 contract suite, as any implementation would.
import { registryContractTests } from "@yoke/testkit/contracts";
import { afterEach, describe, it } from "vitest";
import { createToolRegistry } from "./registry.js";

const contract = registryContractTests(({ readmission }) => createToolRegistry({ readmission }));

describe("ToolRegistryV1 contract: createToolRegistry", () => {
  afterEach(contract.cleanup);
  it.for(contract.tests)("$title", (test) => test.run());
});
