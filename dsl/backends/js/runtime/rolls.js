// Rolls (mirrors dsl/runtime/rolls.py): the exact chance of success and of each outcome of a roll
// the situation calls for, with its changes, tiers, margins and consequences; and the merging of
// the same roll asked for by several rules (rolled once).

import { RuleInputError, add, ceil, cmp, floor, frac, mul, show, sub, whole } from "./base.js";
import { Dice, poolDice, poolText } from "./dice.js";
import { Consequence, Roll, TraceEntry } from "./results.js";
import { applyOne } from "./settle.js";
import { TraceSpec, countsDice, naturalNames, naturalTests, tierShows } from "./specs.js";

/** The roll of a step whose conditions hold: its changes traced, its chances worked out.  A value
 * the roll cannot be made with is refused naming the roll. */
export function rollOf(scope, step) {
  const spec = step.spec;
  try {
    const changed = rollChanges(scope, spec, step.changes);
    const values = step.values;
    const found = typeof values === "function" ? values(scope) : values;
    return rolled(scope, spec, found, ...changed);
  } catch (error) {
    if (error instanceof RuleInputError) {
      throw new RuleInputError(`roll \`${spec.name}\` of \`${spec.rule}\`: ${error.message}`);
    }
    throw error;
  }
}

/** The changes of a roll that hold, each traced, in order: the pool and the tiers as the last
 * that holds says, a failure made automatic over a success. */
export function rollChanges(scope, spec, changes) {
  let pool = spec.pool;
  let tiers = spec.tiers;
  let delta = 0n;
  let shift = 0n;
  let automatic = spec.kind !== "automatic" ? null : spec.success ? "success" : "failure";
  for (const [change, clauses, amount, trace] of changes) {
    let decided = -1;
    for (let position = 0; position < clauses.length; position++) {
      if (!clauses[position](scope)) {
        decided = position;
        break;
      }
    }
    scope.trace.push(new TraceEntry(trace, decided, scope.v, scope.e));
    if (decided >= 0) continue;
    if (change.kind === "pool") pool = change.pool;
    else if (change.kind === "dice") delta += change.delta;
    else if (change.kind === "target") shift = add(shift, typeof amount === "function" ? amount(scope) : amount);
    else if (change.kind === "tiers") tiers = change.tiers;
    else if (automatic !== "failure") automatic = change.success ? "success" : "failure";
  }
  return [pool, delta, shift, automatic, tiers];
}

/** A roll from its values and its changes: its dice, exact chances, consequences. */
export function rolled(scope, spec, found, pool, delta, shift, automatic, tiers) {
  const book = scope.book;
  let goal = null;
  let bonus = 0n;
  let op = spec.op;
  let dice = "";
  let value = null;
  let needed = 0n;
  if (spec.kind === "resist") {
    const [active, passive] = found;
    goal = book.resistance(active, passive);
    pool = book.resistancePool;
    op = book.resistanceOp;
  } else if (["check", "total", "count"].includes(spec.kind)) {
    [goal, bonus, value, needed] = found;
    if (goal !== null) goal = add(goal, shift);
  }
  if (value !== null && pool !== spec.pool) value = null; // a pool change that holds replaces the dice, worked out or written
  if (value !== null) {
    value = delta ? value.withDice(delta) : value;
    dice = String(value);
  } else if (pool !== null) {
    const [count, sides, keep] = pool;
    pool = [count + delta > 1n ? count + delta : 1n, sides, keep];
    dice = poolText(pool);
  }
  if (automatic !== null) {
    dice = dice || "none";
  } else if (spec.kind === "opposed") {
    dice =
      spec.pool !== null && spec.against !== null ? `${poolText(spec.pool)} vs ${poolText(spec.against)}` : `${found[2]} vs ${found[3]}`;
    op = "vs";
  }
  const pair = spec.kind === "opposed" && automatic === null ? found : null;
  const [probability, outcomes, margins, totals, successes] = rollChances(book, spec, automatic, pool, value, goal, bonus, op, needed, pair, tiers);
  const consequences = [];
  for (const consequence of spec.consequences) {
    let after = null;
    if (consequence.target !== null && consequence.op !== null) {
      const target = consequence.target;
      const current = scope.e.has(target) ? scope.e.get(target) : scope.v.get(target);
      const amount = typeof consequence.value === "function" ? consequence.value(scope) : consequence.value;
      after = applyOne(book.inputs.get(target), current, consequence.op, amount, consequence.rounding);
    }
    const chance = outcomes.has(consequence.outcome) ? outcomes.get(consequence.outcome) : 0n;
    consequences.push(new Consequence(consequence.outcome, consequence.text, chance, consequence.target, whole(after)));
  }
  return new Roll({
    spec,
    dice,
    bonus: whole(bonus),
    comparison: op,
    target: whole(goal),
    probability,
    automatic,
    outcomes,
    margins,
    totals,
    successes,
    needed: spec.kind === "count" ? needed : null,
    consequences,
    plan: rollPlan(spec, automatic, pool, value, bonus, pair),
    tiers,
  });
}

/** What is rolled, as the chances take it: each side's [dice, bonus] (rolls.py _plan). */
function rollPlan(spec, automatic, pool, value, bonus, pair) {
  if (automatic !== null) return [];
  if (spec.kind === "opposed") {
    if (spec.pool !== null && spec.against !== null) return [[poolDice(...spec.pool), pair[0]], [poolDice(...spec.against), pair[1]]];
    return [[pair[2], pair[0]], [pair[3], pair[1]]];
  }
  if (spec.kind === "count") {
    if (value !== null) return [[Dice.pool(value.firstCount(), value.terms.length ? value.terms[0][1] : 2n), 0n]];
    return [[Dice.pool(pool[0], pool[1]), 0n]];
  }
  const dice = value !== null ? value : pool !== null ? poolDice(...pool) : null;
  return dice !== null ? [[dice, bonus]] : [];
}

function rollChances(book, spec, automatic, pool, value, goal, bonus, op, needed, pair, tiers) {
  let outcomes = new Map();
  let margins = new Map();
  let totals = new Map();
  let successes = new Map();
  let probability;
  if (automatic !== null) {
    probability = automatic === "success" ? 1n : 0n;
  } else if (spec.kind === "opposed") {
    const [first, second] = pair;
    const edge = sub(second, first);
    let win;
    let tie;
    if (spec.pool !== null && spec.against !== null) {
      const diff = book.poolDifference(spec.pool, spec.against);
      win = sub(1n, diff.atMostP(edge));
      tie = typeof edge === "bigint" ? diff.betweenP(edge, edge) : 0n;
    } else {
      [win, tie] = beats(pair[2], pair[3], edge);
    }
    outcomes = new Map([
      ["win", win],
      ["tie", tie],
      ["lose", sub(sub(1n, win), tie)],
    ]);
    probability = spec.ties === "win" ? add(win, tie) : win;
  } else if (spec.kind === "count") {
    let count;
    let sides;
    if (value !== null) {
      count = value.firstCount();
      sides = value.terms.length ? value.terms[0][1] : 2n;
    } else {
      [count, sides] = pool;
    }
    successes = successesOf(count, sides, op, goal);
    probability = 0n;
    for (const [k, p] of successes) if (k >= needed) probability = add(probability, p);
    outcomes = new Map([
      ["success", probability],
      ["failure", sub(1n, probability)],
    ]);
  } else {
    const exploding = (pool !== null && pool[2] === "exploding") || (value !== null && !value.bounded);
    const horizon = exploding ? horizonOf(goal, bonus, tiers) : null;
    const dist = value !== null ? book.dice(value, horizon) : book.pool(pool, horizon);
    let rows = null;
    if (tiers.some((tier) => tier.natural !== null) && (value !== null || exploding || countsDice(tiers))) {
      rows = book.naturals(value !== null ? value : poolDice(...pool), tiers, horizon);
    }
    if (spec.kind === "total") {
      for (const [t, p] of dist.chances()) totals.set(add(t, bonus), p);
      probability = null;
      outcomes = tiers.length ? tierChances(dist, tiers, 0n, bonus, null, rows) : new Map();
    } else {
      let chance;
      if (tiers.length) {
        outcomes = tierChances(dist, tiers, goal, bonus, op, rows);
        chance = outcomes.get(" success");
        outcomes.delete(" success");
        const named = new Set(tiers.map((tier) => tier.name));
        if (!named.has("success")) outcomes.set("success", chance);
        if (!named.has("failure")) outcomes.set("failure", sub(1n, chance));
      } else {
        chance = dist.compareP(op, sub(goal, bonus));
        outcomes = new Map([
          ["success", chance],
          ["failure", sub(1n, chance)],
        ]);
      }
      probability = chance;
      if (spec.margin_outcomes.length) margins = marginsOf(dist, op, sub(goal, bonus), spec.margin_outcomes.includes("success"));
    }
  }
  return [probability, outcomes, margins, totals, successes];
}

/** Outcome tiers, first match wins, total by total: `roll` tests the total, `natural` the dice
 * alone (or the first face of a named die).  `rows`: [naturals, total of the dice, chance] when
 * the naturals are not the totals themselves (Dice.naturals). */
export function tierChances(dist, tiers, goal, bonus, op, rows = null) {
  const bounds = new Map();
  for (const tier of tiers) if (tier.bound !== null) bounds.set(tier.name, tier.bound(goal));
  const names = naturalNames(tiers);
  const found = new Map(tiers.map((tier) => [tier.name, 0n]));
  let success = 0n;
  let chances;
  if (rows === null) {
    chances = [...dist.chances()].map(([total, chance]) => [names.map(() => total), total, chance]);
    if (dist.limit !== null) {
      const above = dist.limit + 1n;
      chances.push([names.map(() => above), above, sub(1n, dist.atMostP(dist.limit))]);
    }
  } else {
    chances = rows;
  }
  for (const [naturals, diceTotal, chance] of chances) {
    const total = add(diceTotal, bonus);
    let chosen = null;
    for (const tier of tiers) {
      let holds;
      if (tier.natural !== null) holds = tierShows(tier, names, naturals);
      else if (tier.op === "<=") holds = cmp(total, bounds.get(tier.name)) <= 0;
      else if (tier.op === ">=") holds = cmp(total, bounds.get(tier.name)) >= 0;
      else holds = true;
      if (holds) {
        chosen = tier;
        break;
      }
    }
    if (chosen !== null) found.set(chosen.name, add(found.get(chosen.name), chance));
    if (op !== null) {
      const won = chosen !== null && chosen.always ? chosen.always === "success" : meets(total, op, goal);
      if (won) success = add(success, chance);
    }
  }
  if (op !== null) found.set(" success", success);
  return found;
}

function horizonOf(goal, bonus, tiers) {
  const edges = goal !== null ? [sub(goal, bonus)] : [];
  for (const tier of tiers) if (tier.bound !== null) edges.push(sub(tier.bound(goal !== null ? goal : 0n), bonus));
  for (const tier of tiers) for (const [, high, die] of naturalTests(tier)) if (die === null) edges.push(high);
  let highest = 0n;
  let any = false;
  for (const edge of edges) {
    const up = ceil(edge);
    if (!any || up > highest) highest = up;
    any = true;
  }
  return (any ? highest : 0n) + 1n;
}

/** P(first - second > edge) and P(first - second == edge), the two rolled apart, for dice of
 * any form (rolls.py beats). */
export function beats(first, second, edge) {
  let mine;
  let theirs;
  try {
    if (second.bounded) {
      theirs = second.totals();
      mine = first.totals(1000000, lastKey(theirs) + ceil(edge) + 1n);
    } else {
      mine = first.totals();
      theirs = second.totals(1000000, lastKey(mine) - floor(edge) + 1n);
    }
  } catch (error) {
    if (error instanceof RangeError) throw new RuleInputError(error.message);
    throw error;
  }
  const values = [...mine.keys()];
  const above = [];
  let running = 0n;
  for (let i = values.length - 1; i >= 0; i -= 1) {
    running = add(running, mine.get(values[i]));
    above.push(running);
  }
  above.reverse();
  let win = 0n;
  let tie = 0n;
  for (const [value, chance] of theirs) {
    const needed = add(value, edge);
    const index = values.findIndex((v) => cmp(v, needed) > 0);
    if (index !== -1) win = add(win, mul(chance, above[index]));
    if (typeof needed === "bigint" && mine.has(needed)) tie = add(tie, mul(chance, mine.get(needed)));
  }
  return [win, tie];
}

function lastKey(map) {
  return [...map.keys()].pop();
}

/** Whether a total meets a target by a comparison. */
export function meets(total, op, goal) {
  const c = cmp(total, goal);
  if (op === "<=") return c <= 0;
  if (op === "<") return c < 0;
  if (op === ">=") return c >= 0;
  if (op === ">") return c > 0;
  if (op === "==") return c === 0;
  return c !== 0;
}

function comb(n, k) {
  let result = 1n;
  for (let i = 0n; i < k; i++) result = (result * (n - i)) / (i + 1n);
  return result;
}

/** How many of `count` dice meet the target, each number with its chance (a binomial). */
export function successesOf(count, sides, op, goal) {
  let meeting = 0n;
  for (let face = 1n; face <= sides; face++) if (meets(face, op, goal)) meeting += 1n;
  const total = sides ** count;
  const found = new Map();
  for (let k = 0n; k <= count; k++) {
    if ((meeting || k === 0n) && (meeting < sides || k === count)) {
      found.set(k, frac(comb(count, k) * meeting ** k * (sides - meeting) ** (count - k), total));
    }
  }
  return found;
}

function marginsOf(dist, op, target, successes) {
  const margins = new Map();
  for (let total = dist.low; total <= dist.high; total++) {
    const p = dist.betweenP(total, total);
    if (p === 0n) continue;
    if (meets(total, op, target) !== successes) continue;
    const margin = cmp(total, target) >= 0 ? floor(sub(total, target)) : ceil(sub(target, total));
    const absolute = margin < 0n ? -margin : margin;
    margins.set(absolute, add(margins.has(absolute) ? margins.get(absolute) : 0n, p));
  }
  return new Map([...margins].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

function identity(roll) {
  const spec = roll.spec;
  const tiers = roll.tiers.map((tier) => tier.name);
  return JSON.stringify([spec.name, spec.kind, roll.dice, show(roll.bonus), roll.comparison, show(roll.target), show(roll.needed), roll.automatic, tiers]);
}

/** The rolls of a situation with each roll asked for by several rules once; a trace entry names
 * the rules that asked for it. */
export function mergeRolls(scope, rolls) {
  const out = mergedRolls(rolls);
  for (const roll of out) {
    if (roll.merged.length) {
      const said = `asked for by ${roll.asked_by.join(", ")}: one roll`;
      const spec = TraceSpec(roll.spec.rule, roll.spec.source, `roll ${roll.spec.name}: ${said}`, ["same roll"], [[]], said);
      scope.trace.push(new TraceEntry(spec, -1, scope.v, scope.e));
    }
  }
  return out;
}

export function mergedRolls(rolls) {
  const first = new Map();
  const out = [];
  for (const roll of rolls) {
    const key = identity(roll);
    let where = roll.spec.separate ? undefined : first.get(key);
    if (where !== undefined && out[where].asked_by.includes(roll.spec.rule)) where = undefined;
    if (where === undefined) {
      if (!roll.spec.separate && !first.has(key)) first.set(key, out.length);
      out.push(roll);
      continue;
    }
    const kept = out[where];
    out[where] = new Roll({ ...kept, merged: [...kept.merged, roll] });
  }
  return out;
}

