import { register } from "node:module";

register("./ts-resolve-hooks.mjs", import.meta.url);
