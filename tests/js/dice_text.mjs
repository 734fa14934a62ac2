// Reads dice texts (a JSON list on stdin, as tests/backends/test_js.py writes them) with the
// JavaScript runtime's Dice.parse and writes each back (or the error): the twin of
// dsl/runtime/dice.py `Dice.parse` and `str`, which the test compares them with.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [runtime] = process.argv.slice(2);
const { Dice } = await import(pathToFileURL(`${runtime}/dice.js`).href);
const texts = JSON.parse(readFileSync(0, "utf8"));
const out = texts.map((text) => {
  try {
    const dice = Dice.parse(text);
    const written = String(dice);
    return { text: written, again: Dice.parse(written).equals(dice) };
  } catch (error) {
    return { error: `${error.name}: ${error.message}` };
  }
});
process.stdout.write(JSON.stringify(out));
