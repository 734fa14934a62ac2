// A small TypeScript app using the JavaScript target: it installs the package a build writes
// (`npm install ./OUT`), and `tsc --strict` checks it against the generated .d.ts
// (tests/backends/test_js.py builds, installs, checks and runs it).
import { broken_ground, resolve, Dice, RuleInputError, jsonText } from "rulecraft-rulebooks/skirmish_terrain";
import type { Inputs, RuleName } from "rulecraft-rulebooks/skirmish_terrain";
import * as books from "rulecraft-rulebooks";
import type { Resolution, Roll, RollMade } from "rulecraft-rulebooks/runtime";
import { Xoshiro128 } from "rulecraft-rulebooks/runtime";

const situation: Inputs = { DEX: 12n, MOV: 10, moved: "6", weapon: "thrown", acrobatics: false };
const alone: Resolution = broken_ground({ DEX: 12n, MOV: 10, moved: 6 });
const together: Resolution = resolve(["broken_ground", "mud"] satisfies RuleName[], situation);

const fall: Roll = alone.roll("fall");
const chance: string = fall.probability === null ? "none" : String(fall.probability);
const dex = together.stats.get("DEX");

let refused = "";
try {
  resolve("broken_ground", { DEX: 1000 });
} catch (error) {
  if (error instanceof RuleInputError) refused = error.message;
}

const made: RollMade = broken_ground({ moved: 8 }, { rng: 20261127 }).rolled("fall");
const stream = new Xoshiro128(7n);
const told = resolve("broken_ground", { moved: 8 }, { rng: stream, rolled: { fall: [3, 4, 2] } }).rolled("fall");

const laser = new Dice([[2, 6]], 1);
const out = {
  fall: chance,
  dex: dex === undefined ? null : String(dex),
  modifiers: together.modifiers.map((m) => `${m.rule}: ${m.status}`),
  refused,
  laser: String(laser),
  mecha: books.mecha_tables.RULEBOOK.title,
  json: together.toDict().stats,
  rolled: made.sides[0].rolled.map((die) => String(die.faces[0])),
  told: [told.source, told.outcome, told.total === null ? null : String(told.total)],
};
console.log(jsonText(out));
