/**
 * What `import "@yoke/testkit/arbitraries"` loads (ES modules): it checks that the optional
 * peer fast-check is installed — DEPENDENCY_MISSING naming it when it is not — and only then
 * loads the arbitraries (`./arbitraries.js`).
 */
import { assertPeersInstalled } from "./peer-dependencies.js";

assertPeersInstalled("@yoke/testkit/arbitraries", ["fast-check"], (specifier) => import.meta.resolve(specifier));
// Not a string literal, so the bundler leaves it to the built `dist/arbitraries.js`.
const arbitraries: typeof import("./arbitraries.js") = await import(new URL("./arbitraries.js", import.meta.url).href);

export const { eventBatchArbitrary, eventDataArbitrary, eventDraftArbitrary, jsonValueArbitrary, runStartedDraftArbitrary } = arbitraries;
