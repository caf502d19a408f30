/**
 * The Standard Schema v1 and Standard JSON Schema v1 interfaces (standardschema.dev),
 * declared here as the specs invite, so protocol needs no dependency for them. zod (3.24+
 * and 4), valibot and arktype schemas implement `StandardSchemaV1`; zod ≥ 4.2, arktype and
 * valibot's `toStandardJsonSchema` implement `StandardJSONSchemaV1`.
 */

/** The base of both specs: the vendor and the inferred types. */
export interface StandardTypedV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardTypedV1.Props<Input, Output>;
}

export declare namespace StandardTypedV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: Types<Input, Output> | undefined;
  }
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  type InferInput<Schema extends StandardTypedV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  type InferOutput<Schema extends StandardTypedV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/**
 * A schema that validates: `~standard.validate` returns the typed value or the issues, maybe
 * asynchronously.
 *
 * @example
 * ```ts
 * const result = await schema["~standard"].validate({ city: "Paris" });
 * if (result.issues) console.log(result.issues.map((issue) => issue.message));
 * else console.log(result.value);
 * ```
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> extends StandardTypedV1.Props<Input, Output> {
    readonly validate: (value: unknown, options?: Options | undefined) => Result<Output> | Promise<Result<Output>>;
  }
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  interface PathSegment {
    readonly key: PropertyKey;
  }
  type Types<Input = unknown, Output = Input> = StandardTypedV1.Types<Input, Output>;
  type InferInput<Schema extends StandardTypedV1> = StandardTypedV1.InferInput<Schema>;
  type InferOutput<Schema extends StandardTypedV1> = StandardTypedV1.InferOutput<Schema>;
}

/**
 * A schema that can say what it accepts as JSON Schema:
 * `~standard.jsonSchema.input({ target: "draft-2020-12" })`.
 *
 * @example
 * ```ts
 * const json = schema["~standard"].jsonSchema.input({ target: "draft-2020-12" });
 * ```
 */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardJSONSchemaV1.Props<Input, Output>;
}

export declare namespace StandardJSONSchemaV1 {
  interface Props<Input = unknown, Output = Input> extends StandardTypedV1.Props<Input, Output> {
    readonly jsonSchema: Converter;
  }
  interface Converter {
    /** May throw when the type has no JSON Schema form. */
    readonly input: (options: Options) => Record<string, unknown>;
    readonly output: (options: Options) => Record<string, unknown>;
  }
  type Target = "draft-2020-12" | "draft-07" | "openapi-3.0" | ({} & string);
  interface Options {
    readonly target: Target;
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
}
