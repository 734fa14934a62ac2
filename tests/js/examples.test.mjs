// The worked examples of rulebooks, run in JavaScript by Node's test runner (`node --test`):
// tests/backends/test_js.py builds the books with `rulecraft build --target js` and writes their
// examples (RULECRAFT_EXAMPLES, a JSON file); each example resolves its situation with the
// generated module and checks every expectation as `rulecraft test` does (dsl/runner.py `_expect`).
//
// A number in the file is {"$number": "7/2"}, dice {"$dice": "2d6"}.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const examples = JSON.parse(readFileSync(process.env.RULECRAFT_EXAMPLES, "utf8"));
const modules = new Map();

async function moduleOf(path) {
  if (!modules.has(path)) modules.set(path, await import(pathToFileURL(path).href));
  return modules.get(path);
}

function decoded(book, value) {
  if (value !== null && typeof value === "object") {
    if ("$number" in value) {
      const [top, bottom] = value.$number.split("/");
      return bottom === undefined ? BigInt(top) : book.frac(BigInt(top), BigInt(bottom));
    }
    if ("$dice" in value) return book.Dice.parse(value.$dice);
  }
  return value;
}

function sameNumber(book, a, b) {
  const [x, y] = [a, b].map((v) => (typeof v === "bigint" ? book.frac(v, 1n) : v));
  if (typeof x === "bigint" && typeof y === "bigint") return x === y;
  if (x instanceof book.Fraction && y instanceof book.Fraction) return x.n === y.n && x.d === y.d;
  return false;
}

/** `_same` of dsl/runner.py: dice by their notation, X and N/A by text, numbers exactly. */
function same(book, actual, expected) {
  if (actual instanceof book.Dice) {
    const text = expected instanceof book.Dice ? String(expected) : String(expected);
    if (String(actual) === text) return true;
    try {
      return String(actual) === String(book.Dice.parse(text));
    } catch {
      return false;
    }
  }
  if (actual instanceof book.Special) return String(actual) === String(expected);
  if (typeof actual === "boolean" || typeof expected === "boolean") return actual === expected;
  const numeric = (v) => typeof v === "bigint" || v instanceof book.Fraction;
  if (numeric(actual) && numeric(expected)) return sameNumber(book, actual, expected);
  return actual === expected;
}

function valueOf(resolution, name) {
  if (resolution.derived.has(name)) return [true, resolution.derived.get(name)];
  return [resolution.stats.has(name), resolution.stats.get(name)];
}

function check(book, resolution, expectation) {
  const wanted = decoded(book, expectation.value);
  const show = book.show ?? String;
  switch (expectation.kind) {
    case "value": {
      const [found, actual] = valueOf(resolution, expectation.name);
      assert.ok(found, `expected ${expectation.name} = ${show(wanted)}, but none of these rules reads or derives it`);
      assert.ok(same(book, actual, wanted), `expected ${expectation.name} = ${show(wanted)}, got ${show(actual)}`);
      return;
    }
    case "roll": {
      const rolls = resolution.rolls.filter((r) => r.name === expectation.roll);
      assert.ok(rolls.length, `expected a roll \`${expectation.roll}\`, but the situation calls for none`);
      const roll = rolls[0];
      const actual = expectation.tier === null ? roll.probability : roll.outcomes.get(expectation.tier);
      assert.ok(actual !== null && actual !== undefined && sameNumber(book, actual, wanted), `expected P(${expectation.roll}${expectation.tier ? ": " + expectation.tier : ""}) = ${show(wanted)}, got ${show(actual ?? null)}`);
      return;
    }
    case "no roll":
      assert.ok(!resolution.rolls.some((r) => r.name === expectation.roll), `expected no roll \`${expectation.roll}\``);
      return;
    case "cannot": {
      const texts = resolution.restrictions.map((r) => r.what);
      assert.ok(texts.includes(expectation.text), `expected the restriction "${expectation.text}"; got ${texts.join("; ") || "none"}`);
      return;
    }
    case "column": {
      const tables = resolution.tables.filter((x) => x.name === expectation.table);
      assert.ok(tables.length && tables[0].selected !== null, `expected a row of \`${expectation.table}\`, but none was selected`);
      const actual = tables[0].selected.values.get(expectation.column);
      assert.ok(same(book, actual, wanted), `expected ${expectation.table}.${expectation.column} = ${show(wanted)}, got ${show(actual ?? null)}`);
      return;
    }
    case "chain": {
      const chains = resolution.chains.filter((c) => c.outcomes.some((o) => o.path.some((s) => s.row === expectation.row)));
      assert.equal(chains.length, 1, `expected one chain that reaches \`${expectation.row}\``);
      const actual = chains[0].chance(expectation.row);
      assert.ok(sameNumber(book, actual, wanted), `expected P(chain reaches ${expectation.row}) = ${show(wanted)}, got ${show(actual)}`);
      return;
    }
    case "chance": {
      const bound = decoded(book, expectation.bound);
      const sequence = resolution.sequence;
      let chances;
      if (sequence !== null && sequence.totals.has(expectation.name)) {
        chances = sequence.totals.get(expectation.name);
      } else {
        const [found, value] = valueOf(resolution, expectation.name);
        assert.ok(found && typeof value !== "boolean" && typeof value !== "string", `expected a chance of ${expectation.name}, but these rules give it no number or dice`);
        chances = book.Chances.of(value);
      }
      const actual = chances.chanceThat(expectation.op, bound);
      assert.ok(sameNumber(book, actual, wanted), `expected P(${expectation.name} ${expectation.op} ${show(bound)}) = ${show(wanted)}, got ${show(actual)}`);
      return;
    }
    case "lasting": {
      const actual = resolution.sequence === null ? null : resolution.sequence.lasting;
      assert.ok(actual !== null && sameNumber(book, actual, wanted), `expected the chance of lasting every round = ${show(wanted)}, got ${show(actual)}`);
      return;
    }
    case "suppressed":
      assert.ok(resolution.modifiers.some((x) => x.rule === expectation.rule && x.status !== "applied"), `expected a modifier of \`${expectation.rule}\` to be suppressed or overridden; none was`);
      return;
    default:
      assert.fail(`no check for the expectation ${expectation.kind}`);
  }
}

for (const example of examples) {
  test(`${example.book}: ${example.title}`, async () => {
    const book = await moduleOf(example.module);
    const given = Object.fromEntries(Object.entries(example.given).map(([k, v]) => [k, decoded(book, v)]));
    const resolution = book.resolve(example.rules, given, { rounds: example.rounds });
    for (const expectation of example.expectations) check(book, resolution, expectation);
  });
}
