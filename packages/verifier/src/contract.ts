/**
 * @yoke/verifier/contract — the contract every `VerifierV1` keeps, as tests any test runner
 * can register.
 */
export {};
