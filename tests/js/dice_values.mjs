// Builds dice values (JSON on stdin: trees of pool / exploding / kept / named / counted /
// rerolled / cancelled / paired / plus / max / min, as tests/backends/test_js_dice.py draws them) with the
// JavaScript runtime's dice.js, and writes each one's text, totals (to a horizon) and naturals
// (or the error) as JSON: the twin of dsl/runtime/dice.py the test compares them with.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [runtime] = process.argv.slice(2);
const { Dice, cancelledDice, clampDice, countedDice, explodingDice, keptDice, namedDie, pairedDice, rerolledDice } = await import(pathToFileURL(`${runtime}/dice.js`).href);
const big = (x) => (x === null ? null : BigInt(x));

function built(tree) {
  switch (tree.op) {
    case "pool":
      return Dice.pool(big(tree.count), big(tree.sides));
    case "number":
      return new Dice([], big(tree.value));
    case "exploding":
      return explodingDice(built(tree.dice), big(tree.times));
    case "kept":
      return keptDice(built(tree.dice), tree.side, big(tree.kept));
    case "named":
      return namedDie(built(tree.dice), tree.name);
    case "counted":
      return countedDice(built(tree.dice), big(tree.low), big(tree.high));
    case "cancelled":
      return cancelledDice(built(tree.dice), tree.name, big(tree.low), big(tree.high));
    case "rerolled":
      return rerolledDice(built(tree.dice), big(tree.low), big(tree.high));
    case "paired":
      return pairedDice(built(tree.first), built(tree.second));
    case "plus":
      return built(tree.first).plus(built(tree.second));
    default:
      return clampDice(tree.op, built(tree.first), built(tree.second));
  }
}

const fracText = (f) => String(f);
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(({ tree, horizon, names }) => {
  const found = {};
  try {
    const dice = built(tree);
    found.text = String(dice);
    found.bounded = dice.bounded;
    const totals = dice.totals(1000000, big(horizon));
    found.totals = Object.fromEntries([...totals].map(([k, v]) => [String(k), fracText(v)]));
    found.naturals = dice.naturals(names, big(horizon)).map(([key, total, chance]) => [key.map(String), String(total), fracText(chance)]);
  } catch (error) {
    found.error = error.message;
  }
  return found;
});
process.stdout.write(JSON.stringify(out));
