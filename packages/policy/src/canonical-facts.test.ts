import { describeCanonicalValues } from "./__fixtures__/canonical-suite.js";
import { createPolicyEngine } from "./index.js";

describeCanonicalValues("createPolicyEngine", (document) => createPolicyEngine(document));
