// Resolves situations with a generated JavaScript module, for the differential test
// (tests/backends/test_js.py): `node situations.mjs MODULE.js SITUATIONS.json` prints one JSON
// line per situation, the whole Resolution (`toDict()`) or the error a resolver refused it with.
//
// A situation is {names, given, rounds}; a number in `given` is {"$number": "7/2"} (exact, any
// size), dice {"$dice": "2d6"}.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [modulePath, situationsPath] = process.argv.slice(2);
const book = await import(pathToFileURL(modulePath).href);

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
  try {
    const resolution = book.resolve(situation.names, given, { rounds: situation.rounds });
    lines.push(book.jsonText({ ok: resolution.toDict() }));
  } catch (error) {
    if (!(error instanceof book.RuleInputError)) throw error;
    lines.push(book.jsonText({ error: error.message }));
  }
}
process.stdout.write(lines.join("\n") + "\n");
