/** This package's version, recorded in `run.started` by default. A test keeps it in step with package.json. */
export const RUNTIME_VERSION = "0.1.0";
