// Rolling a situation (mirrors dsl/runtime/rolling.py): every roll it calls for, and every table
// it rolls on, rolled from a seed (`rng`) or told as rolled elsewhere (`rolled`), with what came
// of each: the dice, the total, the tier and outcome, the margin and the consequences that come,
// beside the exact chances.  The generator goes through the tables named, each followed by the
// chain its row sends on to (depth first), then the rolls in the order the resolution lists
// them, each followed by the chain its outcome sends on to, as in Python: the same seed, the
// same dice.

import { HugeNumber, RuleInputError, abs, add, asNumber, ceil, clip, cmp, floor, parts, shown, sub, whole } from "./base.js";
import { Scope } from "./book.js";
import { chainsOf, parseStep } from "./chains.js";
import { MAX_COMBINATIONS, poolDice } from "./dice.js";
import { showingWithin, withinFaces } from "./pools.js";
import { meets } from "./rolls.js";
import { ChainRoll, DiceRoll, Resolution, Roll, RollMade, TableResult, TableRow } from "./results.js";
import { countsDice, naturalNames, rowFor, tierShows } from "./specs.js";
import { sendsOn, tableResult } from "./tables.js";
import { GeneratedFaces, ToldFaces, throwDice } from "./throws.js";

/** The most rolls one rolled chain makes: `roll again` rows can send on for ever. */
export const MAX_CHAINED_ROLLS = 1000;

/** The situation resolved by `resolve` (on `given`), then rolled. */
export function resolveRolling(book, names, given, rng, rolled, resolve) {
  const generated = rng !== null && rng !== undefined ? new GeneratedFaces(rng) : null;
  const told = toldResults(rolled);
  const chosen = typeof names === "string" ? [names] : Array.isArray(names) ? names : [];
  const tables = [...new Set(chosen)].filter((name) => typeof name === "string" && book.tables.has(name));
  const onDice = tables.filter((name) => book.tables.get(name).pool !== null);
  const inputs = given instanceof Map ? new Map(given) : new Map(Object.entries(given || {}));
  const givenRoll = inputs.has("roll") && inputs.get("roll") !== null && inputs.get("roll") !== undefined;
  const toRoll = onDice.filter((name) => told.has(name) || (generated !== null && !givenRoll));
  if (toRoll.length && givenRoll) {
    throw new RuleInputError(`\`roll\` selects the rows of ${onDice.join(", ")}, and ${toRoll.join(", ")} is told: give one or the other`);
  }
  const toldTables = new ToldTables(book, told);
  let resolution = resolve(inputs);
  for (const name of toRoll) {
    const spec = book.tables.get(name);
    const dice = poolDice(...spec.pool);
    const thrown = toldTables.has(name) ? toldTables.throw(name, dice) : throwDice(dice, generated);
    const side = thrownSide(dice, 0n, thrown);
    resolution = byItsRoll(book, resolution, name, side.dice_total);
    const index = resolution.tables.findIndex((t) => t.name === name);
    const t = resolution.tables[index];
    const chained = rollChain(book, resolution, t, toldTables, generated);
    const table = new TableResult(t.name, t.title, t.source, t.dice, t.keys, t.result, t.selected, t.rows, tableSide(book, t, side), chained);
    resolution = new Resolution({ ...resolution, tables: resolution.tables.map((other, i) => (i === index ? table : other)) });
  }
  if (toRoll.length === 1) {
    // as the situation resolved with `roll` lists its inputs
    const rolledTable = resolution.tables.find((t) => t.name === toRoll[0]);
    resolution = new Resolution({ ...resolution, inputs: new Map([...resolution.inputs, ["roll", rolledTable.rolled.dice_total]]) });
  }
  const rolls = resolution.rolls;
  const places = placesOf(rolls, told, tables);
  const results = rolls.map((roll, index) => {
    const said = places.has(index) ? places.get(index) : null;
    if (said === null && generated === null) return roll;
    const made = rollMade(roll, said, generated);
    const chained = outcomeChain(book, resolution, roll, made, toldTables, generated);
    return new Roll({ ...roll, rolled: new RollMade(made.source, made.sides, made.total, made.margin, made.outcome, made.outcomes, made.success, made.consequences, made.effects, chained) });
  });
  toldTables.finish();
  return new Resolution({ ...resolution, rolls: results });
}

/** The situation with table `name`'s row selected by its own roll (rolling.py _by_its_roll). */
function byItsRoll(book, resolution, name, total) {
  const spec = book.tables.get(name);
  const index = resolution.tables.findIndex((t) => t.name === name);
  const v = new Map([...resolution.inputs, ...resolution.tables[index].keys, ["roll", total]]);
  const scope = new Scope(book, v, new Map([...resolution.stats, ...resolution.derived]), []);
  const table = tableResult(scope, spec);
  const trace = resolution.trace.map((entry) => (unrolled(entry, name) ? scope.trace[0] : entry));
  let chains = resolution.chains;
  if (sendsOn(spec)) {
    const at = chains.findIndex((chain) => chain.rule === name);
    chains = [...chains.slice(0, at), ...chainsOf(scope, [], [table]), ...chains.slice(at + 1)];
  }
  const tables = resolution.tables.map((other, i) => (i === index ? table : other));
  return new Resolution({ ...resolution, tables, trace, chains });
}

/** The trace entry of `table` resolved with no roll given (every row with its chance). */
function unrolled(entry, table) {
  return entry.spec.rule === table && entry.spec.clauses.length === 1 && entry.spec.clauses[0] === "no roll given";
}

/** The results told for tables rolled on dice (taken out of `told`): each table's faces, one list
 * for every roll made on it, first roll first, or a total for a table rolled once. */
class ToldTables {
  constructor(book, told) {
    this.said = new Map();
    for (const key of [...told.keys()]) {
      if (book.tables.has(key) && book.tables.get(key).pool !== null) {
        this.said.set(key, told.get(key));
        told.delete(key);
      }
    }
    this.faces = new Map();
    this.totalsUsed = new Set();
  }
  has(table) {
    return this.said.has(table);
  }
  throw(table, dice) {
    const said = this.said.get(table);
    if (said === null || said === undefined || isFaces(said)) {
      if (!this.faces.has(table)) this.faces.set(table, facesOf(table, said));
      return throwDice(dice, this.faces.get(table));
    }
    if (this.totalsUsed.has(table)) {
      throw new RuleInputError(`${table}: the chain rolls on it again; tell its faces, every roll's in order, not one total`);
    }
    this.totalsUsed.add(table);
    return totalTold(table, dice, said);
  }
  finish() {
    for (const table of this.said.keys()) {
      if (!this.faces.has(table) && !this.totalsUsed.has(table)) {
        throw new RuleInputError(`${table}: told, but the situation does not roll on it`);
      }
    }
    for (const faces of this.faces.values()) faces.finish();
  }
}

/** The rolls the selected row of a rolled table sends on to, depth first (rolling.py _roll_chain). */
function rollChain(book, resolution, table, told, generated) {
  if (table.selected === null) return [];
  const spec = book.tables.get(table.name);
  const offset = spec.modifier !== null ? BigInt(spec.sign) * parts(table.keys.get(spec.modifier))[0] : 0n;
  return rolledOn(book, resolution, `table ${table.name}`, chainChildren(table.name, offset, table.selected.steps, 1), told, generated);
}

/** The rolls the outcomes that came up send on to, in the order written (rolling.py _outcome_chain). */
function outcomeChain(book, resolution, roll, made, told, generated) {
  const steps = [];
  for (const asking of [roll, ...roll.merged]) {
    for (const [outcome, step] of asking.spec.steps) if (made.outcomes.includes(outcome)) steps.push(step);
  }
  return rolledOn(book, resolution, `roll ${roll.spec.name}`, chainChildren("", 0n, steps, 1), told, generated);
}

/** Roll the chain `pending` starts (a stack: the first to roll last), depth first (rolling.py _rolled_on). */
function rolledOn(book, resolution, origin, pending, told, generated) {
  const scope = new Scope(book, new Map(resolution.inputs), new Map([...resolution.stats, ...resolution.derived]), []);
  const made = [];
  while (pending.length) {
    const [name, modifier, twice, depth] = pending.pop();
    if (!told.has(name) && generated === null) continue; // nothing told, nothing to roll with: the chain stops here
    if (made.length >= MAX_CHAINED_ROLLS) {
      throw new RuleInputError(`the chain from ${origin} was still rolling after ${MAX_CHAINED_ROLLS.toLocaleString("en-US")} rolls`);
    }
    const chained = book.tables.get(name);
    const dice = poolDice(...chained.pool);
    const thrown = told.has(name) ? told.throw(name, dice) : throwDice(dice, generated);
    let result = thrown.total + modifier;
    let extra = [];
    if (chained.above !== null && chained.becomes !== null && result > chained.above) {
      result = chained.becomes;
      extra = chained.overflow_step ? [chained.overflow_step] : [];
    }
    const row = rowFor(chained, [result]);
    const steps = [...row.steps, ...extra];
    const parsed = steps.map((step) => parseStep(step, name));
    const again = twice && parsed.some(([, , isTwice]) => isTwice);
    const applies = !again && (!parsed.length || parsed.some(([t, , w]) => t === name && !w));
    const values = new Map();
    chained.columns.forEach((column, i) => {
      const cell = row.cells[i];
      values.set(column, whole(typeof cell === "function" ? cell(scope) : cell));
    });
    made.push(new ChainRoll(name, depth, thrownSide(dice, modifier, thrown), result, new TableRow(row.key, values, steps, null), applies, again));
    if (again) pending.push([name, modifier, true, depth]);
    else pending.push(...chainChildren(name, modifier, steps, depth + 1));
  }
  return made;
}

/** The rolls a row's steps send on to, as a stack (the first to roll last). */
function chainChildren(table, offset, steps, depth) {
  const rolls = [];
  for (const [target, modifier, twice] of steps.map((step) => parseStep(step, table))) {
    if (twice) rolls.push([target, offset, true, depth], [target, offset, true, depth]);
    else rolls.push([target, modifier, false, depth]);
  }
  return rolls.reverse();
}

/** A dice value rolled from `rng` (a Xoshiro128 the caller keeps to roll on from), or as `said`
 * tells it (rolling.py roll_dice). */
export function rollDice(name, dice, said, rng) {
  if (said === null || said === undefined) return thrownSide(dice, 0n, throwDice(dice, new GeneratedFaces(rng)));
  if (isFaces(said)) return thrownSide(dice, 0n, thrownFrom(name, dice, said, null));
  return thrownSide(dice, 0n, totalTold(name, dice, said));
}

function tableSide(book, table, side) {
  const spec = book.tables.get(table.name);
  if (spec.modifier === null) return side;
  const offset = BigInt(spec.sign) * parts(table.keys.get(spec.modifier))[0];
  return side.with({ bonus: offset, total: side.dice_total + offset });
}

/** What `rolled` tells, by name (rolling.py told_results). */
export function toldResults(rolled) {
  if (rolled === null || rolled === undefined) return new Map();
  const entries = rolled instanceof Map ? [...rolled] : typeof rolled === "object" && !Array.isArray(rolled) ? Object.entries(rolled) : null;
  if (entries === null || !entries.every(([key]) => typeof key === "string")) {
    throw new RuleInputError(`rolled maps each roll's name to its faces or its total, as in {fall: [3, 4, 2]}, not ${shown(rolled)}`);
  }
  return new Map(entries);
}

function placesOf(rolls, told, tables) {
  const places = new Map();
  for (const [key, value] of told) {
    const dot = key.lastIndexOf(".");
    const rule = dot >= 0 ? key.slice(0, dot) : "";
    const name = dot >= 0 ? key.slice(dot + 1) : key;
    const found = [];
    rolls.forEach((r, i) => {
      if (r.spec.name === name && (!rule || r.asked_by.includes(rule))) found.push(i);
    });
    if (found.length > 1) {
      const rules = found.map((i) => `${rolls[i].spec.rule}.${name}`).join(", ");
      throw new RuleInputError(`several rules of the situation have a roll \`${clip(name)}\`: say which (${rules})`);
    }
    if (!found.length) {
      if (tables.includes(key)) throw new RuleInputError(`\`${clip(key)}\` is a table looked up by its inputs, not rolled on`);
      const called = [...rolls.map((r) => r.spec.name), ...tables];
      throw new RuleInputError(`no roll \`${clip(key)}\` in this situation (rolled: ${called.join(", ") || "none"})`);
    }
    places.set(found[0], value);
  }
  return places;
}

function isFaces(said) {
  return Array.isArray(said);
}

function facesOf(name, said) {
  if (!Array.isArray(said) || !said.every((f) => typeof f === "bigint" || (typeof f === "number" && Number.isSafeInteger(f)))) {
    throw new RuleInputError(`${name}: the faces told are whole numbers, as in [3, 4, 2], not ${shown(said)}`);
  }
  return new ToldFaces(name, said.map((f) => BigInt(f)));
}

function thrownSide(dice, bonus, thrown) {
  return new DiceRoll(String(dice), whole(bonus), thrown.dice, thrown.total, whole(add(thrown.total, bonus)));
}

function thrownFrom(name, dice, said, generated) {
  const faces = said !== null ? facesOf(name, said) : generated;
  const thrown = throwDice(dice, faces);
  if (faces instanceof ToldFaces) faces.finish();
  return thrown;
}

function totalTold(name, dice, said, tiers = []) {
  let number;
  try {
    number = typeof said === "boolean" ? null : asNumber(said);
  } catch (error) {
    if (!(error instanceof HugeNumber)) throw error;
    number = null;
  }
  if (number === null || parts(number)[1] !== 1n) {
    throw new RuleInputError(`${name}: a total told is a whole number (or a list of faces), not ${shown(said)}`);
  }
  const total = parts(number)[0];
  let totals;
  try {
    totals = dice.totals(MAX_COMBINATIONS, dice.bounded ? null : total > dice.lowest ? total : dice.lowest);
  } catch (error) {
    if (error instanceof RuleInputError) throw error;
    throw new RuleInputError(`${name}: ${error.message}`);
  }
  if (!totals.has(total)) {
    const keys = [...totals.keys()];
    const reach = dice.bounded ? `${keys[0]}..${keys[keys.length - 1]}` : `${keys[0]} or more`;
    throw new RuleInputError(`${name}: ${total} is not a total ${dice} can show (${reach})`);
  }
  const groups = dice.groups();
  let natural = null;
  const naturalNeeded = tiers.some((t) => t.natural !== null);
  if (countsDice(tiers)) throw new RuleInputError(`${name}: its outcome reads how many dice show a face; tell the faces, not the total`);
  if (groups.every((g) => g.plain)) natural = total - dice.bonus;
  else if (naturalNeeded) throw new RuleInputError(`${name}: its outcome reads the dice as first rolled; tell the faces, not the total`);
  if (naturalNeeded && groups.some((g) => g.name !== null)) {
    throw new RuleInputError(`${name}: its outcome reads a named die; tell the faces, not the total`);
  }
  return { total, natural, named: new Map(), dice: [] };
}

function rollMade(roll, said, generated) {
  const spec = roll.spec;
  if (roll.automatic !== null) {
    if (said !== null) throw new RuleInputError(`${spec.name}: no dice are rolled, it is an automatic ${roll.automatic}`);
    return decided(roll, "automatic", [], null, null, [roll.automatic], roll.automatic === "success");
  }
  const plan = roll.plan;
  if (spec.kind === "opposed") {
    if (said !== null && !isFaces(said)) {
      throw new RuleInputError(`${spec.name}: an opposed roll is told by the faces of both sides, first side first`);
    }
    const faces = said !== null ? facesOf(spec.name, said) : generated;
    const sides = plan.map(([dice, bonus]) => thrownSide(dice, bonus, throwDice(dice, faces)));
    if (faces instanceof ToldFaces) faces.finish();
    const order = cmp(sides[0].total, sides[1].total);
    const outcome = order > 0 ? "win" : order === 0 ? "tie" : "lose";
    const success = outcome === "win" || (outcome === "tie" && spec.ties === "win");
    return decided(roll, said !== null ? "faces" : "rng", sides, null, null, [outcome], success);
  }
  const [dice, bonus] = plan[0];
  if (spec.kind === "count") return counted(roll, dice, said, generated);
  let thrown;
  let source;
  if (said === null || isFaces(said)) {
    thrown = thrownFrom(spec.name, dice, said, generated);
    source = said !== null ? "faces" : "rng";
  } else {
    thrown = totalTold(spec.name, dice, said, roll.tiers);
    source = "total";
  }
  return checked(roll, source, thrownSide(dice, bonus, thrown), thrown);
}

function counted(roll, dice, said, generated) {
  const name = roll.spec.name;
  const op = roll.comparison;
  const goal = roll.target;
  const count = dice.terms[0][0];
  let successes;
  let sides;
  let source;
  if (said === null || isFaces(said)) {
    const thrown = thrownFrom(name, dice, said, generated);
    const met = thrown.dice.map((d) => d.withKept(meets(d.value, op, goal)));
    successes = BigInt(met.filter((d) => d.kept).length);
    sides = [new DiceRoll(String(dice), 0n, met, successes, successes)];
    source = said !== null ? "faces" : "rng";
  } else {
    const number = typeof said === "bigint" ? said : typeof said === "number" && Number.isSafeInteger(said) ? BigInt(said) : null;
    if (number === null || number < 0n || number > count) {
      throw new RuleInputError(`${name}: the dice that met the target are a whole number from 0 to ${count}, not ${shown(said)}`);
    }
    successes = number;
    sides = [];
    source = "total";
  }
  const success = successes >= roll.needed;
  return decided(roll, source, sides, successes, null, [success ? "success" : "failure"], success);
}

function checked(roll, source, side, thrown) {
  const spec = roll.spec;
  const total = side.total;
  const goal = roll.target;
  const op = roll.comparison;
  let chosen = null;
  for (const tier of roll.tiers) {
    let holds;
    if (tier.natural !== null) {
      const names = naturalNames([tier]);
      const naturals = names.map((die) => {
        const within = showingWithin(die);
        if (within !== null) return BigInt(thrown.dice.filter((d) => withinFaces(d.value, within)).length);
        const natural = die === null ? thrown.natural : thrown.named.has(die) ? thrown.named.get(die) : null;
        if (natural === null) throw new RuleInputError(`${spec.name}: the natural result of ${side.dice} is not defined`);
        return natural;
      });
      holds = tierShows(tier, names, naturals);
    } else if ((tier.op === "<=" || tier.op === ">=") && tier.bound !== null) {
      const bound = tier.bound(goal !== null ? goal : 0n);
      holds = tier.op === "<=" ? cmp(total, bound) <= 0 : cmp(total, bound) >= 0;
    } else {
      holds = true;
    }
    if (holds) {
      chosen = tier;
      break;
    }
  }
  if (spec.kind === "total" || op === null || goal === null) {
    return decided(roll, source, [side], total, null, chosen !== null ? [chosen.name] : [], null);
  }
  const won = chosen !== null && chosen.always ? chosen.always === "success" : meets(total, op, goal);
  const named = new Set(roll.tiers.map((t) => t.name));
  const plain = won ? "success" : "failure";
  const found = [...(chosen !== null ? [chosen.name] : []), ...(named.has(plain) ? [] : [plain])];
  const margin = cmp(total, goal) >= 0 ? abs(floor(sub(total, goal))) : ceil(sub(goal, total));
  return decided(roll, source, [side], total, margin, found, won);
}

function decided(roll, source, sides, total, margin, outcomes, success) {
  const consequences = [];
  const effects = [];
  for (const asking of [roll, ...roll.merged]) {
    consequences.push(...asking.consequences.filter((c) => outcomes.includes(c.outcome)));
    for (const o of outcomes) if (Object.prototype.hasOwnProperty.call(asking.spec.outcomes, o)) effects.push(asking.spec.outcomes[o]);
  }
  const outcome = outcomes.length ? outcomes[0] : "none";
  return new RollMade(source, sides, total === null ? null : whole(total), margin, outcome, outcomes, success, consequences, effects);
}
