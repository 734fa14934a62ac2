// What a generated module says of each rule, the same in every resolution (mirrors
// dsl/runtime/specs.py): its modifiers, rolls, texts and derived values, its tables, its sequence
// over rounds, the trace spec of each step.  Each spec is a frozen object with the fields of the
// Python dataclass of the same name; `Candidate` is an array
// [place, key, decided, trace, spec, given], as in Python.

import { Fraction, cmp } from "./base.js";
import { showingWithin } from "./pools.js";

function made(fields, defaults = {}) {
  return Object.freeze({ ...defaults, ...fields });
}

export function TraceSpec(rule, source, item, clauses, names, verdict = null) {
  return Object.freeze({ rule, source, item, clauses, names, verdict });
}

export const ModSpec = (fields) => made(fields, { label: null });
/** `tiers`: the tiers a `when C: tiers NAME` change reads the roll with. */
export const ChangeSpec = (fields) => made(fields, { tiers: [] });
/** `also`: the [low, high, die] a natural tier reads after the first (`and natural 1 on wild`),
 * joined by `joined`: "and" (every one holds) or "or" (any holds). */
export function TierSpec(name, op, bound, natural = null, always = null, die = null, also = [], joined = "and") {
  return Object.freeze({ name, op, bound, natural, always, die, also, joined });
}

/** Every [low, high, die] a natural tier reads; none for a tier on the total. */
export function naturalTests(tier) {
  return tier.natural === null ? [] : [[tier.natural[0], tier.natural[1], tier.die], ...tier.also];
}

/** Whether the tiers count the dice showing a face (specs.py counts_dice). */
export function countsDice(tiers) {
  return naturalNames(tiers).some((name) => showingWithin(name) !== null);
}

/** The naturals the tiers read, once each in order: null for the dice alone, a die's name. */
export function naturalNames(tiers) {
  return [...new Set(tiers.flatMap((tier) => naturalTests(tier).map((test) => test[2])))];
}

/** Whether the naturals (the first face of each die of `names`, null the dice alone) hold a
 * natural tier. */
export function tierShows(tier, names, naturals) {
  const shown = naturalTests(tier).map(([low, high, die]) => {
    const natural = naturals[names.indexOf(die)];
    return low <= natural && natural <= high;
  });
  return tier.joined === "and" ? shown.every(Boolean) : shown.some(Boolean);
}
export function ConsequenceSpec(outcome, text, target = null, op = null, value = null, rounding = null) {
  return Object.freeze({ outcome, text, target, op, value, rounding });
}
export const RollSpec = (fields) => made(fields, { consequences: [], steps: [], separate: false });
export const TextSpec = (fields) => made(fields);
export const DeriveSpec = (fields) => made(fields);

export const MODIFIER_KINDS = Object.freeze({
  number: ["scaling", "additions", "grade"],
  dice: ["dice", "steps", "additions", "scaling"],
});

export const KIND_OPS = Object.freeze({
  scaling: new Set(["mul", "div"]),
  additions: new Set(["add"]),
  grade: new Set(["grade"]),
  dice: new Set(["dice"]),
  steps: new Set(["step"]),
});

export function StatOrder(kinds, rules = []) {
  return Object.freeze({ kinds, rules });
}

/** The indexes of modifiers (by the rule each comes from) in the order they apply. */
export function inRuleOrder(rules, origins) {
  const rank = new Map(rules.map((rule, i) => [rule, i]));
  const places = [];
  origins.forEach((origin, i) => {
    if (rank.has(origin)) places.push(i);
  });
  const moved = [...places].sort((a, b) => rank.get(origins[a]) - rank.get(origins[b]) || a - b);
  const found = origins.map((_, i) => i);
  places.forEach((place, i) => {
    found[place] = moved[i];
  });
  return found;
}

export function Grade(name, step, op, value, rounding) {
  return Object.freeze({ name, step, op, value, rounding });
}

export function RollStep(spec, values, changes = []) {
  return Object.freeze({ spec, values, changes });
}

export function RuleCode(fields) {
  return made(fields, { rolls: null, texts: null, watches: [], chains: false });
}

export function RowSpec(low, high, member, isElse, key, cells, steps) {
  return Object.freeze({ low, high, member, isElse, key, cells, steps });
}

export function TableSpec(fields) {
  return made(fields, { notes: [], depth: null });
}

/** The row a key selects (a number, a member, or a member pair for a two-way table). */
export function rowFor(table, keys) {
  const key = keys[0];
  const numeric = typeof key === "bigint" || key instanceof Fraction;
  for (const row of table.rows) {
    if (row.member !== null && row.member === key) return row;
    if (row.low !== null && numeric && cmp(row.low, key) <= 0 && (row.high === null || cmp(key, row.high) <= 0)) return row;
  }
  for (const row of table.rows) if (row.isElse) return row;
  return null;
}

export function SequenceSpec(rule, unit, counter, start, until = null, then = null, totals = [], times = 1, counted = [], follows = null) {
  return Object.freeze({ rule, unit, counter, start, until, then, totals, times, counted, follows });
}

