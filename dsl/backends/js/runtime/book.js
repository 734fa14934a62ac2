// A generated module's rulebook as the runtime holds it (mirrors dsl/runtime/book.py): its
// inputs, rules, their code, tables, grades, the order its values settle in, and the
// distributions worked out so far; and `Scope`, the values expressions read.

import { RuleInputError, lcm, parts, show } from "./base.js";
import { Distribution, MAX_COMBINATIONS, MAX_HORIZON, distribution, difference, fromWays, listedReach } from "./dice.js";
import { TraceEntry } from "./results.js";
import { TraceSpec, naturalNames, rowFor } from "./specs.js";

/** The values expressions read: `v` the inputs, `e` the stats after their modifiers and the
 * derived values, as the situation settles them (both Maps). */
export class Scope {
  constructor(book, v, e, trace) {
    this.book = book;
    this.v = v;
    this.e = e;
    this.trace = trace;
  }

  lookup(table, keys, column) {
    const [cell, lookup] = cellOf(this.book, table, keys, column);
    const value = typeof cell === "function" ? cell(this) : cell;
    this.trace.push(new TraceEntry(lookup, -1, this.v, this.e));
    return value;
  }
}

function cellOf(book, table, keys, column) {
  const spec = book.tables.get(table);
  const row = rowFor(spec, keys);
  if (row === null) throw new RuleInputError(`table \`${table}\` has no row for ${show(keys[0])}`);
  const index = spec.columns.indexOf(spec.inputs.length === 2 ? String(keys[1]) : column);
  const shownKeys = keys.map((k) => show(k)).join(", ");
  const names = spec.inputs.map((name) => [name]);
  const lookup = TraceSpec(table, spec.source, `look up ${table}: row ${row.key}`, [`${table}[${shownKeys}]`], names, `row ${row.key}`);
  return [row.cells[index], lookup];
}

const poolKey = (pool) => `${pool[0]},${pool[1]},${pool[2]}`;

export class Book {
  constructor({ info, inputs, rules, code, tables, grades, resistance, resistancePool, resistanceOp, settle = [], orders = new Map() }) {
    Object.assign(this, { info, inputs, rules, code, tables, grades, resistance, resistancePool, resistanceOp, settle, orders });
    this.defaults = new Map([...inputs].map(([name, spec]) => [name, spec.default]));
    this.order = new Map([...inputs.keys()].map((name, index) => [name, index]));
    this.derivedInputs = new Set([...inputs].filter(([, spec]) => spec.derived !== null).map(([name]) => name));
    this.pools = new Map();
    this.differences = new Map();
    this.values = new Map();
    this.schedules = new Map();
  }

  /** The distribution of a pool; of exploding dice, worked out at least up to `horizon`. */
  pool(key, horizon = null) {
    const name = poolKey(key);
    let found = this.pools.get(name);
    if (found === undefined || (found.limit !== null && horizon !== null && found.limit < horizon)) {
      if (horizon !== null && horizon > MAX_HORIZON) {
        throw new RuleInputError(`the chance of a total above ${MAX_HORIZON.toLocaleString("en-US")} on exploding dice is not worked out`);
      }
      const reach = listedReach(...key);
      const wanted = horizon !== null && horizon > reach ? horizon : reach;
      found = distribution(key[0], key[1], key[2], wanted > 0n ? wanted : 0n);
      this.pools.set(name, found);
    }
    return found;
  }

  /** The distribution of a dice value, worked out once per value; of dice that explode without
   * end, up to `horizon` (every higher total gathered above it). */
  dice(value, horizon = null) {
    const bounded = value.bounded;
    const name = bounded ? String(value) : `${value}|${horizon}`;
    let found = this.values.get(name);
    if (found === undefined) {
      if (horizon !== null && horizon > MAX_HORIZON) {
        throw new RuleInputError(`the chance of a total above ${MAX_HORIZON.toLocaleString("en-US")} on exploding dice is not worked out`);
      }
      let chances;
      try {
        chances = value.totals(MAX_COMBINATIONS, horizon);
      } catch (error) {
        if (error instanceof RangeError) throw new RuleInputError(error.message);
        throw error;
      }
      const denominator = lcm(...[...chances.values()].map((p) => parts(p)[1]));
      const totals = [...chances.keys()];
      const low = totals[0];
      const high = totals[totals.length - 1];
      const ways = [];
      for (let t = low; t <= high; t++) {
        const chance = chances.get(t);
        if (chance === undefined) ways.push(0n);
        else {
          const [n, d] = parts(chance);
          ways.push(n * (denominator / d));
        }
      }
      found = fromWays(low, denominator, ways);
      if (!bounded && horizon !== null) {
        found = new Distribution(found.low, found.denominator, found.atMost.slice(0, Number(horizon - low + 1n)), horizon);
      }
      this.values.set(name, found);
    }
    return found;
  }

  /** The chance of each (naturals its natural tiers read, total of the dice), worked out once:
   * rows [naturals, total, chance]. */
  naturals(value, tiers, horizon) {
    const names = naturalNames(tiers);
    const key = `${value}|${names.join(",")}|${horizon}`;
    if (this.naturalsFound === undefined) this.naturalsFound = new Map();
    let found = this.naturalsFound.get(key);
    if (found === undefined) {
      try {
        found = value.naturals(names, value.bounded ? null : horizon, MAX_COMBINATIONS);
      } catch (error) {
        if (error instanceof RangeError) throw new RuleInputError(error.message);
        throw error;
      }
      if (this.naturalsFound.size >= MAX_CACHED) this.naturalsFound.clear();
      this.naturalsFound.set(key, found);
    }
    return found;
  }

  poolDifference(first, second) {
    const name = `${poolKey(first)}|${poolKey(second)}`;
    let found = this.differences.get(name);
    if (found === undefined) {
      found = difference(this.pool(first), this.pool(second));
      this.differences.set(name, found);
    }
    return found;
  }
}

/** The most entries a cache of a book keeps (book.py MAX_CACHED). */
export const MAX_CACHED = 4096;

/** The stats and derived values of a situation as they settle; a derived value none of whose
 * conditions held is worked out when first read (`wait`). */
export class Settled extends Map {
  wait(name, compute) {
    if (this.pending === undefined) this.pending = new Map();
    this.pending.set(name, compute);
  }

  get(name) {
    if (super.has(name)) return super.get(name);
    const compute = this.pending === undefined ? undefined : this.pending.get(name);
    if (compute === undefined) throw new Error(`no value ${name} settled`);
    this.pending.delete(name);
    const value = compute();
    this.set(name, value);
    return value;
  }
}

