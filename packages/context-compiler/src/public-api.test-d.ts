// Type tests of @yoke/context-compiler's public entry, checked by the package's `tsc`.
import type { ModelRequest } from "@yoke/protocol";
import { expectTypeOf } from "vitest";
import {
  compile,
  createContextCompiler,
  diffManifest,
  isContextOverflow,
  rebuildRequest,
  sha256Hex,
  toolResultText,
  truncateUtf8,
  type CompileConfig,
  type CompileResult,
  type ContextCompiler,
  type ContextInput,
  type Manifest,
  type ManifestDelta,
} from "./index.js";
// @ts-expect-error the delimiter helpers stay the compiler's own
import { openDelimiter as notPublic } from "./index.js";
// @ts-expect-error nor the tuning constants
import { MESSAGE_OVERHEAD_TOKENS as notPublicEither } from "./index.js";

void notPublic;
void notPublicEither;
// How the compiler renders, cuts and hashes a tool result's text, for a runtime whose bytes must agree.
expectTypeOf(sha256Hex).returns.toEqualTypeOf<string>();
expectTypeOf(truncateUtf8).parameters.toEqualTypeOf<[text: string, maxBytes: number]>();
expectTypeOf(toolResultText).returns.toEqualTypeOf<string>();

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
