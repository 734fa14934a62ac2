// Writes exact numbers as the runtime writes them in JSON (tests/backends/test_js.py compares the
// floats with Python's): `node floats.mjs RUNTIME/base.js NUMBERS.json`, each number "n/d".
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [basePath, numbersPath] = process.argv.slice(2);
const base = await import(pathToFileURL(basePath).href);
const numbers = JSON.parse(readFileSync(numbersPath, "utf8"));
const written = numbers.map((text) => {
  const [top, bottom] = text.split("/");
  const value = base.frac(BigInt(top), BigInt(bottom));
  return { number: base.numberJson(value), probability: base.probabilityJson(value) };
});
process.stdout.write(base.jsonText(written) + "\n");
