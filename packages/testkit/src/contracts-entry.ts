/**
 * What `import "@yoke/testkit/contracts"` loads (ES modules): it checks that the optional
 * peers the suites need, vitest and fast-check, are installed — DEPENDENCY_MISSING naming the
 * package when one is not — and only then loads the suites (`./contracts.js`).
 */
import { assertPeersInstalled } from "./peer-dependencies.js";

assertPeersInstalled("@yoke/testkit/contracts", ["vitest", "fast-check"], (specifier) => import.meta.resolve(specifier));
// Not a string literal, so the bundler leaves it to the built `dist/contracts.js`.
const suites: typeof import("./contracts.js") = await import(new URL("./contracts.js", import.meta.url).href);

export const {
  PROVIDER_CONTRACT_REQUESTS,
  PROVIDER_CONTRACT_SEEDS,
  WEATHER_TOOL,
  createStaticToolSource,
  describeArtifactStoreContract,
  describeIdempotencyStoreContract,
  describeJournalContract,
  describeJournalTamperSuite,
  describeProviderContract,
  describeRegistryContract,
  describeRunLeaseContract,
  providerContractTests,
  registryContractTests,
  journalContractTests,
  idempotencyStoreContractTests,
  runLeaseContractTests,
} = suites;
