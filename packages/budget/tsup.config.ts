import { packageBuild } from "../../tsup.shared.ts";

export default packageBuild(["src/index.ts"]);
