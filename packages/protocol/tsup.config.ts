import { packageBuild } from "../../tsup.shared.ts";

export default packageBuild(["src/index.ts", "src/provider-utils.ts", "src/journal-utils.ts"]);
