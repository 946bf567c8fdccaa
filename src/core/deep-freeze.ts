// Freeze a plain-data value all the way down: caches hand the same objects to every request, and a
// frozen object makes an accidental mutation throw (ES modules are strict) instead of leaking.
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
