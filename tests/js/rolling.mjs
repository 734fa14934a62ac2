// Rolls situations with a generated JavaScript module, for tests/backends/test_js_rolling.py:
// `node rolling.mjs MODULE.js SITUATIONS.json` prints one JSON line per situation, the whole
// Resolution (`toDict()`) or the error a resolver refused it with.  A situation is {names, given,
// rng, rolled, rounds}: `rng` a seed (text, any size), `rolled` faces or totals by roll name,
// `rounds` (optional) a number of rounds of the rule's sequence; a number in
// `given` is {"$number": "7/2"}, dice {"$dice": "2d6"}.  With no situations file it prints the
// generator's pinned outputs instead (the first four of seed 0, twelve d6 of seed 20261127).
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [modulePath, situationsPath] = process.argv.slice(2);
const book = await import(pathToFileURL(modulePath).href);
const runtime = await import(new URL("./runtime/index.js", pathToFileURL(modulePath)).href);

if (situationsPath === undefined) {
  const zero = new runtime.Xoshiro128(0n);
  const dice = new runtime.Xoshiro128(20261127n);
  const state = zero.getstate();
  const outputs = [0, 1, 2, 3].map(() => zero.next32());
  const d6 = Array.from({ length: 12 }, () => dice.below(6n) + 1);
  process.stdout.write(JSON.stringify({ state, outputs, d6 }) + "\n");
  process.exit(0);
}

function decoded(value) {
  if (value !== null && typeof value === "object" && "$number" in value) {
    const [top, bottom] = value.$number.split("/");
    return bottom === undefined ? BigInt(top) : book.frac(BigInt(top), BigInt(bottom));
  }
  if (value !== null && typeof value === "object" && "$dice" in value) return book.Dice.parse(value.$dice);
  return value;
}

const lines = [];
for (const situation of JSON.parse(readFileSync(situationsPath, "utf8"))) {
  const given = Object.fromEntries(Object.entries(situation.given).map(([k, v]) => [k, decoded(v)]));
  const rng = situation.rng === null ? null : BigInt(situation.rng);
  try {
    const rounds = situation.rounds === undefined ? null : situation.rounds;
    const resolution = book.resolve(situation.names, given, { rng, rolled: situation.rolled, rounds });
    lines.push(book.jsonText({ ok: resolution.toDict() }));
  } catch (error) {
    if (!(error instanceof book.RuleInputError)) throw error;
    lines.push(book.jsonText({ error: error.message }));
  }
}
process.stdout.write(lines.join("\n") + "\n");
