/**
 * Letters of other scripts that render like Latin letters, mapped to the Latin letter (in the
 * spirit of the UTS #39 skeleton, restricted to what reaches a policy: Cyrillic, Greek,
 * and Armenian capitals and small letters that a reader takes for ASCII). Fullwidth
 * and mathematical letters need no entry: NFKC folds them before this table is consulted.
 * Used only to make deny rules match more, never to make a granting rule match.
 */
const PAIRS: readonly (readonly [string, string])[] = [
  // Cyrillic capitals
  ["АВСЕНІЈКМОРЅТХУ", "ABCEHIJKMOPSTXY"],
  ["ԁԌԚԜ", "dGQW"],
  // Cyrillic small letters
  ["аеіјорсѕхуԁһԛԝ", "aeijopcsxydhqw"],
  ["ӏ", "l"],
  ["ѵ", "v"],
  ["ү", "y"],
  ["ɡ", "g"],
  // Greek capitals
  ["ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϜ", "ABEZHIKMNOPTYXF"],
  // Greek small letters
  ["οικνρτυχ", "oiknptux"],
  ["ϲϳ", "cj"],
  // Armenian
  ["ՕՍՏհոսօ", "OUShnuo"],
];

/** Confusable letter → Latin letter. */
export const CONFUSABLE_TO_LATIN: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  for (const [from, to] of PAIRS) {
    const sources = [...from];
    const targets = [...to];
    for (const [index, source] of sources.entries()) map.set(source, targets[index]!);
  }
  return map;
})();
