/**
 * @yoke/testkit/contracts — contract suites any implementation runs in its own vitest
 * suite. Needs `vitest` and `fast-check` (optional peer dependencies of @yoke/testkit).
 */
export { describeJournalContract, journalContractTests } from "./journal-contract.js";
export type { ContractTest, ContractTests } from "./contract-recorder.js";
export type { JournalContractOptions } from "./journal-contract.js";
export type { JournalContractStore, JournalStoreFactory } from "./journal-contract-support.js";
export { PROVIDER_CONTRACT_REQUESTS, PROVIDER_CONTRACT_SEEDS, WEATHER_TOOL, describeProviderContract, providerContractTests } from "./provider-contract.js";
export type {
  ProviderContractContext,
  ProviderContractFactory,
  ProviderContractOptions,
  ProviderContractScenario,
  ProviderContractSubject,
  ProviderContractTest,
  ProviderContractTests,
} from "./provider-contract.js";
export { describeRunLeaseContract, runLeaseContractTests } from "./lease-contract.js";
export type { LeaseContractOptions, LeaseStoreFactory } from "./lease-contract.js";
export { describeJournalTamperSuite } from "./tamper-suite.js";
export type { TamperKind, TamperSubject, TamperedRun } from "./tamper-suite.js";
export { describeIdempotencyStoreContract, idempotencyStoreContractTests } from "./idempotency-contract.js";
export type { IdempotencyStoreFactory } from "./idempotency-contract.js";
export { describeArtifactStoreContract } from "./artifact-store-contract.js";
export type { ArtifactStoreContractOptions, ArtifactStoreContractSubject, ArtifactStoreFactory } from "./artifact-store-contract.js";
export { describeRegistryContract, registryContractTests } from "./contracts/tool-registry-contract.js";
export type {
  RegistryContractFactory,
  RegistryContractOptions,
  RegistryContractSetup,
  RegistryContractTest,
  RegistryContractTests,
} from "./contracts/tool-registry-contract.js";
export { createStaticToolSource } from "./contracts/tool-registry-source.js";
export type { StaticToolSource, StaticToolSourceOptions } from "./contracts/tool-registry-source.js";
