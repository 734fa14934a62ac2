// What a resolution returns (mirrors dsl/runtime/results.py): the `Resolution`, its modifiers,
// rolls, restrictions, notes, tables, trace, chains and sequence, each with `toDict()`, the same
// data as Python's `to_dict()` (what `rulecraft resolve --json` prints).  Maps keep the order
// Python's dicts keep; numbers are exact (BigInt and Fraction).

import { RuleInputError, add, clip, cmp as compareNumbers, numberJson, probabilityJson, show } from "./base.js";
import { valueJson } from "./dice.js";

export class RulebookInfo {
  constructor(name, title, source, version, notes = []) {
    Object.assign(this, { name, title, source, version, notes });
    Object.freeze(this);
  }
}

function chancesJson(chances, key) {
  return [...chances].map(([k, p]) => ({ [key]: numberJson(k), probability: probabilityJson(p) }));
}

function mapOf(entries, value) {
  const out = {};
  for (const [k, v] of entries) out[k] = value(v);
  return out;
}

export class Modifier {
  constructor(spec, amount, status, reason) {
    Object.assign(this, { spec, amount, status, reason });
    Object.freeze(this);
  }
  get rule() {
    return this.spec.rule;
  }
  get target() {
    return this.spec.target;
  }
  get applied() {
    return this.status === "applied";
  }
  toDict() {
    const spec = this.spec;
    return {
      target: spec.target,
      operation: spec.op,
      amount: valueJson(this.amount),
      text: spec.text,
      label: spec.label,
      rule: spec.rule,
      source: spec.source,
      group: spec.group,
      status: this.status,
      applied: this.status === "applied",
      reason: this.reason,
    };
  }
}

export class Consequence {
  constructor(outcome, text, probability, stat, value) {
    Object.assign(this, { outcome, text, probability, stat, value });
    Object.freeze(this);
  }
  toDict() {
    return {
      outcome: this.outcome,
      text: this.text,
      probability: probabilityJson(this.probability),
      stat: this.stat,
      value: valueJson(this.value),
    };
  }
}

export class Roll {
  /** fields: spec, dice, bonus, comparison, target, probability, automatic, outcomes (Map),
   * margins (Map), totals (Map), successes (Map), needed, consequences, merged; plan (what is
   * rolled: [dice, bonus] per side), rolled (a RollMade, when rolled) and tiers (those the roll is
   * read with: its own, or those the last `when C: tiers NAME` that holds chooses). */
  constructor(fields) {
    Object.assign(this, { consequences: [], merged: [], plan: [], rolled: null }, fields);
    Object.freeze(this);
  }
  get name() {
    return this.spec.name;
  }
  get rule() {
    return this.spec.rule;
  }
  get asked_by() {
    return [this.spec.rule, ...this.merged.map((x) => x.spec.rule)];
  }
  toDict() {
    const spec = this.spec;
    return {
      name: spec.name,
      label: spec.label,
      rule: spec.rule,
      source: spec.source,
      kind: spec.kind,
      dice: this.dice,
      bonus: numberJson(this.bonus),
      comparison: this.comparison,
      target: this.target === null ? null : numberJson(this.target),
      needed: this.needed === null ? null : numberJson(this.needed),
      probability: this.probability === null ? null : probabilityJson(this.probability),
      automatic: this.automatic,
      outcomes: mapOf(this.outcomes, probabilityJson),
      effects: { ...spec.outcomes },
      margins: chancesJson(this.margins, "margin"),
      totals: chancesJson(this.totals, "total"),
      successes: chancesJson(this.successes, "successes"),
      consequences: this.consequences.map((x) => x.toDict()),
      notes: [...spec.notes],
      asked_by: this.asked_by,
      merged: this.merged.map((x) => ({
        rule: x.spec.rule,
        source: x.spec.source,
        effects: { ...x.spec.outcomes },
        consequences: x.consequences.map((c) => c.toDict()),
        notes: [...x.spec.notes],
      })),
      ...(this.rolled !== null ? { rolled: this.rolled.toDict() } : {}),
    };
  }
}

/** One die as it was rolled (results.py DieRoll). */
export class DieRoll {
  constructor(die, faces, rerolled, explosions, value, kept = true, name = null) {
    Object.assign(this, { die, faces: Object.freeze([...faces]), rerolled, explosions, value, kept, name });
    Object.freeze(this);
  }
  get natural() {
    return this.faces[0];
  }
  withKept(kept) {
    return new DieRoll(this.die, this.faces, this.rerolled, this.explosions, this.value, kept, this.name);
  }
  toDict() {
    return {
      die: this.die,
      faces: this.faces.map(numberJson),
      natural: numberJson(this.faces[0]),
      rerolled: this.rerolled,
      explosions: numberJson(this.explosions),
      value: numberJson(this.value),
      kept: this.kept,
      name: this.name,
    };
  }
}

/** A dice value rolled (results.py DiceRoll). */
export class DiceRoll {
  constructor(dice, bonus, rolled, diceTotal, total) {
    Object.assign(this, { dice, bonus, rolled: Object.freeze([...rolled]), dice_total: diceTotal, total });
    Object.freeze(this);
  }
  with(changes) {
    const next = { ...this, ...changes };
    return new DiceRoll(next.dice, next.bonus, next.rolled, next.dice_total, next.total);
  }
  toDict() {
    return {
      dice: this.dice,
      bonus: numberJson(this.bonus),
      rolled: this.rolled.map((d) => d.toDict()),
      dice_total: numberJson(this.dice_total),
      total: numberJson(this.total),
    };
  }
}

/** What a roll came to (results.py RollMade). */
export class RollMade {
  constructor(source, sides, total, margin, outcome, outcomes, success, consequences, effects = [], chained = []) {
    Object.assign(this, { source, sides, total, margin, outcome, outcomes, success, consequences, effects, chained });
    Object.freeze(this);
  }
  toDict() {
    return {
      source: this.source,
      sides: this.sides.map((side) => side.toDict()),
      total: this.total === null ? null : numberJson(this.total),
      margin: this.margin === null ? null : numberJson(this.margin),
      outcome: this.outcome,
      outcomes: [...this.outcomes],
      success: this.success,
      consequences: this.consequences.map((c) => c.toDict()),
      effects: [...this.effects],
      chained: this.chained.map((c) => c.toDict()),
    };
  }
}

export class Restriction {
  constructor(rule, source, what) {
    Object.assign(this, { rule, source, what });
    Object.freeze(this);
  }
  get text() {
    return `cannot ${this.what}`;
  }
  toDict() {
    return { what: this.what, text: this.text, rule: this.rule, source: this.source };
  }
}

export class Note {
  constructor(rule, source, text, quote = null, kind = "note") {
    Object.assign(this, { rule, source, text, quote, kind });
    Object.freeze(this);
  }
  toDict() {
    return { kind: this.kind, text: this.text, quote: this.quote, rule: this.rule, source: this.source };
  }
}

export class TraceEntry {
  /** `values` and `effective` are the situation's Maps, read when the entry is reported. */
  constructor(spec, decided, values, effective) {
    Object.assign(this, { spec, decided, values, effective });
    Object.freeze(this);
  }
  get applied() {
    return this.decided < 0;
  }
  get clause() {
    const clauses = this.spec.clauses;
    if (!clauses.length) return null;
    return this.decided >= 0 ? clauses[this.decided] : clauses.join("; ");
  }
  get reads() {
    const names = this.spec.names;
    const chosen = this.decided >= 0 ? names.slice(this.decided, this.decided + 1) : names;
    const found = new Map();
    for (const group of chosen) {
      for (const name of group) {
        if (name.startsWith("base ")) found.set(name, this.values.get(name.slice(5)) ?? null);
        else found.set(name, this.effective.has(name) ? this.effective.get(name) : this.values.get(name) ?? null);
      }
    }
    return found;
  }
  get because() {
    const clauses = this.spec.clauses;
    if (!clauses.length) return "always applies";
    let said;
    if (this.spec.verdict !== null) {
      said = `${clauses[0]}: ${this.spec.verdict}`;
    } else if (this.decided >= 0) {
      const clause = clauses[this.decided];
      said = `${clause}: ${clause.startsWith("unless ") ? "holds" : "does not hold"}`;
    } else {
      said = clauses.map((c) => `${c}: ${c.startsWith("unless ") ? "does not hold" : "holds"}`).join("; ");
    }
    const reads = this.reads;
    if (!reads.size) return said;
    const values = [...reads].map(([name, value]) => `${name} = ${show(value)}`).join(" and ");
    return `${said}, because ${values}`;
  }
  toDict() {
    return {
      rule: this.spec.rule,
      source: this.spec.source,
      item: this.spec.item,
      applied: this.decided < 0,
      clause: this.clause,
      reads: mapOf(this.reads, valueJson),
      because: this.because,
    };
  }
}

export class TableRow {
  constructor(key, values, steps, probability) {
    Object.assign(this, { key, values, steps, probability });
    Object.freeze(this);
  }
  toDict() {
    return {
      key: this.key,
      values: mapOf(this.values, valueJson),
      then: [...this.steps],
      probability: this.probability === null ? null : probabilityJson(this.probability),
    };
  }
}

export class TableResult {
  constructor(name, title, source, dice, keys, result, selected, rows, rolled = null, chained = []) {
    Object.assign(this, { name, title, source, dice, keys, result, selected, rows, rolled, chained: Object.freeze([...chained]) });
    Object.freeze(this);
  }
  toDict() {
    return {
      name: this.name,
      title: this.title,
      source: this.source,
      dice: this.dice,
      keys: mapOf(this.keys, valueJson),
      result: this.result === null ? null : numberJson(this.result),
      selected: this.selected === null ? null : this.selected.toDict(),
      rows: this.rows.map((row) => row.toDict()),
      ...(this.rolled !== null ? { rolled: this.rolled.toDict() } : {}),
      ...(this.rolled !== null ? { chained: this.chained.map((c) => c.toDict()) } : {}),
    };
  }
}

/** One roll of a chain a rolled table's row sent on to (results.py ChainRoll). */
export class ChainRoll {
  constructor(table, depth, rolled, result, row, applies, again = false) {
    Object.assign(this, { table, depth, rolled, result, row, applies, again });
    Object.freeze(this);
  }
  toDict() {
    return {
      table: this.table,
      depth: this.depth,
      rolled: this.rolled.toDict(),
      result: numberJson(this.result),
      row: this.row.toDict(),
      applies: this.applies,
      again: this.again,
    };
  }
}

export class Resolution {
  /** fields: rulebook, rules, inputs, stats, derived (Maps), modifiers, rolls, restrictions,
   * notes, tables, trace (arrays), sequence, chains. */
  constructor(fields) {
    Object.assign(this, { sequence: null, chains: [] }, fields);
    Object.freeze(this);
  }

  /** The roll called `name` (of `rule`, when several rules call for a roll of that name). */
  roll(name, rule = null) {
    const found = this.rolls.filter((r) => r.spec.name === name && (rule === null || r.asked_by.includes(rule)));
    if (found.length === 1) return found[0];
    if (found.length) {
      const rules = found.map((r) => r.spec.rule).join(", ");
      throw new RuleInputError(`several rules call for a roll \`${clip(name)}\` (${rules}): say which with rule=`);
    }
    const called = this.rolls.map((r) => `${r.spec.name} (${r.spec.rule})`).join(", ") || "none";
    throw new RuleInputError(`no roll \`${clip(name)}\` in this situation (rolls: ${called})`);
  }

  /** What the roll called `name` (a rolled table's name too) came to, when rolled. */
  rolled(name, rule = null) {
    const table = rule === null ? this.tables.find((t) => t.name === name) : undefined;
    if (table !== undefined && table.rolled !== null && table.result !== null) {
      const outcome = table.selected !== null ? `row ${table.selected.key}` : "no row";
      return new RollMade("table", [table.rolled], table.result, null, outcome, [outcome], null, []);
    }
    const roll = this.roll(name, rule);
    if (roll.rolled === null) {
      throw new RuleInputError(`roll \`${clip(name)}\` was not rolled: resolve with rng (or its result in rolled)`);
    }
    return roll.rolled;
  }

  toDict() {
    const data = {
      rulebook: this.rulebook,
      rules: [...this.rules],
      inputs: mapOf(this.inputs, valueJson),
      stats: {},
      derived: mapOf(this.derived, valueJson),
      modifiers: this.modifiers.map((x) => x.toDict()),
      rolls: this.rolls.map((x) => x.toDict()),
      restrictions: this.restrictions.map((x) => x.toDict()),
      notes: this.notes.map((x) => x.toDict()),
      tables: this.tables.map((x) => x.toDict()),
      trace: this.trace.map((x) => x.toDict()),
      chains: this.chains.map((x) => x.toDict()),
    };
    for (const [k, v] of this.stats) data.stats[k] = { start: valueJson(this.inputs.get(k) ?? null), final: valueJson(v) };
    if (this.sequence !== null) data.sequence = this.sequence.toDict();
    return data;
  }
}

export class RuleInfo {
  constructor(name, kind, title, source, reads) {
    Object.assign(this, { name, kind, title, source, reads });
    Object.freeze(this);
  }
}

export class ChainStep {
  constructor(table, roll, key, text, then, applies, depth) {
    Object.assign(this, { table, roll, key, text, then, applies, depth });
    Object.freeze(this);
  }
  get row() {
    return `${this.table} ${this.key}`;
  }
  /** One identity per step, for the ways a chain keys by their paths. */
  get id() {
    return JSON.stringify([this.table, this.roll, this.key, this.text, this.then, this.applies, this.depth]);
  }
  toDict() {
    return { table: this.table, key: this.key, text: this.text, then: [...this.then], applies: this.applies };
  }
}

export class ChainOutcome {
  constructor(path, probability, totals) {
    Object.assign(this, { path, probability, totals });
    Object.freeze(this);
  }
  toDict() {
    return {
      path: this.path.map((s) => ({ row: s.row, roll: s.roll, depth: s.depth })),
      totals: mapOf(this.totals, numberJson),
      probability: probabilityJson(this.probability),
    };
  }
}

export class FlowStep {
  constructor(depth, table, roll, key, text, chance, reach, then, repeats, twice = false, cut = false) {
    Object.assign(this, { depth, table, roll, key, text, chance, reach, then, repeats, twice, cut });
    Object.freeze(this);
  }
  toDict() {
    return {
      depth: this.depth,
      row: `${this.table} ${this.key}`,
      roll: this.roll,
      text: this.text,
      chance: probabilityJson(this.chance),
      reach: probabilityJson(this.reach),
      then: [...this.then],
      repeats: this.repeats,
      twice: this.twice,
      cut: this.cut,
    };
  }
}

export class Chain {
  constructor(rule, start, probability, outcomes, complete, depth, beyond, rolls, visits, means, flow = []) {
    Object.assign(this, { rule, start, probability, outcomes, complete, depth, beyond, rolls, visits, means, flow });
    Object.freeze(this);
  }
  /** The chance that a row ("table key") is visited at least once, over the ways listed. */
  chance(row) {
    let sum = 0n;
    for (const o of this.outcomes) if (o.path.some((s) => s.row === row)) sum = add(sum, o.probability);
    return sum;
  }
  distribution(column) {
    const found = new Map();
    const keys = [];
    for (const outcome of this.outcomes) {
      const total = outcome.totals.has(column) ? outcome.totals.get(column) : 0n;
      const key = show(total);
      if (!found.has(key)) {
        found.set(key, [total, 0n]);
        keys.push(total);
      }
      const entry = found.get(key);
      entry[1] = add(entry[1], outcome.probability);
    }
    return [...found.values()].sort((a, b) => compareNumbers(a[0], b[0]));
  }
  toDict() {
    const columns = [...new Set(this.outcomes.flatMap((o) => [...o.totals.keys()]))].sort();
    const totals = {};
    for (const c of columns) {
      totals[c] = this.distribution(c).map(([t, p]) => ({ total: numberJson(t), probability: probabilityJson(p) }));
    }
    const rows = {};
    for (const o of this.outcomes) for (const s of o.path) rows[s.row] = s.toDict();
    return {
      rule: this.rule,
      start: this.start,
      probability: probabilityJson(this.probability),
      complete: this.complete,
      depth: this.depth,
      beyond: probabilityJson(this.beyond),
      rolls: this.rolls === null ? null : numberJson(this.rolls),
      visits: mapOf(this.visits, numberJson),
      means: mapOf(this.means, numberJson),
      totals,
      flow: this.flow.map((s) => s.toDict()),
      rows,
      outcomes: this.outcomes.map((o) => o.toDict()),
    };
  }
}


export class RoundResult {
  constructor(number, going, ends, rolls, means, rolled = null) {
    Object.assign(this, { number, going, ends, rolls, means, rolled });
    Object.freeze(this);
  }
  withRolled(rolled) {
    return new RoundResult(this.number, this.going, this.ends, this.rolls, this.means, rolled);
  }
  toDict() {
    return {
      number: this.number,
      going: probabilityJson(this.going),
      ends: probabilityJson(this.ends),
      rolls: mapOf(this.rolls, (outcomes) => mapOf(outcomes, probabilityJson)),
      means: mapOf(this.means, numberJson),
      ...(this.rolled !== null ? { rolled: this.rolled.toDict() } : {}),
    };
  }
}

/** One round of a sequence as rolled (results.py RolledRound). */
export class RolledRound {
  constructor(changed, ends, rolls, tables, values, totals) {
    Object.assign(this, { changed, ends, rolls, tables, values, totals });
    Object.freeze(this);
  }
  toDict() {
    return {
      changed: this.changed,
      ends: this.ends,
      rolls: this.rolls.filter((roll) => roll.rolled !== null).map((roll) => ({ name: roll.name, rule: roll.rule, rolled: roll.rolled.toDict() })),
      tables: this.tables.map((table) => table.toDict()),
      values: mapOf(this.values, (value) => value.toDict()),
      totals: mapOf(this.totals, numberJson),
    };
  }
}

/** What a total took from one rolled round (results.py RolledValue). */
export class RolledValue {
  constructor(value, rolled) {
    Object.assign(this, { value, rolled });
    Object.freeze(this);
  }
  toDict() {
    return { value: numberJson(this.value), rolled: this.rolled === null ? null : this.rolled.toDict() };
  }
}

/** A sequence as rolled, round after round (results.py RolledSequence). */
export class RolledSequence {
  constructor(rounds, ended, changed, totals) {
    Object.assign(this, { rounds, ended, changed, totals });
    Object.freeze(this);
  }
  toDict() {
    return { rounds: this.rounds, ended: this.ended, changed: this.changed, totals: mapOf(this.totals, numberJson) };
  }
}

export class SequenceResult {
  constructor(rule, unit, counter, until, rounds, lasting, totals, rolled = null) {
    Object.assign(this, { rule, unit, counter, until, rounds, lasting, totals, rolled });
    Object.freeze(this);
  }
  toDict() {
    return {
      rule: this.rule,
      unit: this.unit,
      counter: this.counter,
      until: this.until,
      rounds: this.rounds.map((r) => r.toDict()),
      lasting: probabilityJson(this.lasting),
      totals: mapOf(this.totals, (chances) => chances.toDict()),
      ...(this.rolled !== null ? { rolled: this.rolled.toDict() } : {}),
    };
  }
}
