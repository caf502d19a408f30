/**
 * `value` without `undefined` object members (`undefined` array items as null, -0 as 0), as
 * `JSON.parse(JSON.stringify(value))` would give for plain data, but copying only the
 * objects and arrays that hold one: a value that has none is returned as is.
 */
export function withoutUndefined<T>(value: T): T {
  return strip(value) as T;
}

function strip(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value === 0 && Object.is(value, -0) ? 0 : value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const stripped = item === undefined ? null : strip(item);
      if (!Object.is(stripped, item) && copy === undefined) copy = value.slice(0, index);
      if (copy !== undefined) copy.push(stripped);
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  const keys = Object.keys(record);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const member = record[key];
    const stripped = member === undefined ? undefined : strip(member);
    if ((member === undefined || !Object.is(stripped, member)) && copy === undefined) {
      copy = {};
      for (let before = 0; before < index; before++) define(copy, keys[before]!, record[keys[before]!]);
    }
    if (copy !== undefined && stripped !== undefined) define(copy, key, stripped);
  }
  return copy ?? value;
}

function define(target: Record<string, unknown>, key: string, value: unknown): void {
  // A "__proto__" member of parsed JSON is an own property; plain assignment would not be.
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
