// Type tests of @yoke/context-compiler's public entry, checked by the package's `tsc`.
import type { ModelRequest } from "@yoke/protocol";
import { expectTypeOf } from "vitest";
import {
  compile,
  createContextCompiler,
  diffManifest,
  isContextOverflow,
  rebuildRequest,
  type CompileConfig,
  type CompileResult,
  type ContextCompiler,
  type ContextInput,
  type Manifest,
  type ManifestDelta,
} from "./index.js";
import { openDelimiter, sha256Hex } from "./internal.js";
// @ts-expect-error the delimiter helpers are not on the public entry
import { openDelimiter as notPublic } from "./index.js";
// @ts-expect-error nor the hash helpers
import { sha256Hex as notPublicEither } from "./index.js";

void notPublic;
void notPublicEither;
expectTypeOf(openDelimiter).toBeFunction();
expectTypeOf(sha256Hex).returns.toEqualTypeOf<string>();

declare const input: ContextInput;
declare const config: CompileConfig;
const result = compile(input, config);
expectTypeOf(result).toEqualTypeOf<CompileResult>();
expectTypeOf(result.request).toEqualTypeOf<ModelRequest>();
expectTypeOf(result.manifest).toEqualTypeOf<Manifest>();
expectTypeOf(createContextCompiler(config)).toEqualTypeOf<ContextCompiler>();
expectTypeOf(createContextCompiler(config).compile).parameter(0).toEqualTypeOf<ContextInput>();
expectTypeOf(diffManifest(undefined, result.manifest)).toEqualTypeOf<ManifestDelta>();
expectTypeOf(rebuildRequest).returns.toHaveProperty("matches");

declare const error: unknown;
expectTypeOf(isContextOverflow(error)).toEqualTypeOf<boolean>();
