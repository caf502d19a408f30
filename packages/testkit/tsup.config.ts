import { packageBuild } from "../../tsup.shared.ts";

export default packageBuild(["src/index.ts", "src/contracts.ts", "src/arbitraries.ts", "src/replay.ts"]);
