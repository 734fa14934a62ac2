// Dice expressions and their exact distributions (mirrors dsl/runtime/dice.py, function for
// function: a change there is made here the same way).
//
// `Dice` is a value a rulebook or an app writes (`3d6`, `1d6+1d8+4`, `max(2d6-3, 0)`);
// `Distribution` the exact chance of every total of a pool (counts over one denominator, with
// running sums); `Chances` the questions a player asks of a total.  Counts are BigInts.

import {
  MAX_BITS,
  MAX_DIGITS,
  RuleInputError,
  Special,
  add,
  bitLength,
  ceil,
  clip,
  cmp,
  div,
  floor,
  frac,
  isNumber,
  lcm,
  mul,
  numberJson,
  parts,
  probabilityJson,
  roundValue,
  show,
  shown,
  sub,
} from "./base.js";
import { Group, Pooled, SHOWING, UNBOUNDED, convolvePairs, convolveWeights, facesText, showingWithin } from "./pools.js";

export const DIE_LADDER = [2n, 3n, 4n, 6n, 8n, 10n, 12n, 20n];

export const MAX_HORIZON = 100000n;
export const MAX_COMBINATIONS = 1000000;
export const MAX_POOL_DICE = 100n;
export const MAX_POOL_SIDES = 1000n;
export const MAX_DICE_WORK = 2000000n;

export class Dice {
  /** terms: [[count, sides], ...] (BigInts), bonus: BigInt, parts: [Scaled | Clamped, ...]. */
  constructor(terms = [], bonus = 0n, diceParts = []) {
    if (!Array.isArray(terms)) throw new RuleInputError(`the pools of dice are a list of [count, sides] pairs, not ${shown(terms)}`);
    const checked = terms.map((term) => {
      const [count, sides] = Array.isArray(term) && term.length === 2 ? term.map(toBig) : [null, null];
      if (count === null || sides === null || count < 1n || sides < 2n) {
        throw new RuleInputError(`${shown(term)} is not a pool anyone can roll: at least one die of two sides or more`);
      }
      if (bitLength(count) > MAX_BITS || bitLength(sides) > MAX_BITS) {
        throw new RuleInputError(`a pool of dice has numbers of at most ${MAX_DIGITS} digits`);
      }
      return Object.freeze([count, sides]);
    });
    const plus = toBig(bonus);
    if (plus === null || bitLength(plus) > MAX_BITS) {
      throw new RuleInputError(`a dice bonus is a whole number of at most ${MAX_DIGITS} digits, not ${shown(bonus)}`);
    }
    this.terms = Object.freeze(checked);
    this.bonus = plus;
    this.parts = Object.freeze([...diceParts]);
    Object.freeze(this);
  }

  static pool(count, sides) {
    count = BigInt(count);
    return count > 0n ? new Dice([[count, BigInt(sides)]]) : new Dice();
  }

  get constant() {
    return !this.terms.length && !this.parts.length;
  }

  toString() {
    if (!this.terms.length && !this.bonus && this.parts.length === 1) return this.parts[0].text();
    const items = this.terms.map(([count, sides]) => `${count}d${sides}`).concat(this.parts.map((p) => `(${p.text()})`));
    let text = items.join("+");
    if (this.bonus) text = text ? `${text}${this.bonus > 0n ? "+" : ""}${this.bonus}` : `${this.bonus}`;
    return text || "0";
  }

  equals(other) {
    return other instanceof Dice && String(other) === String(this);
  }

  /** Read dice as `toString` writes them (dice.py `Dice.parse`); RuleInputError for text that
   * is not dice. */
  static parse(text) {
    try {
      const reader = new DiceReader(text);
      const value = reader.expression();
      reader.end();
      return value;
    } catch (error) {
      if (error instanceof RangeError) throw new RuleInputError(error.message);
      throw error;
    }
  }

  plus(other) {
    if (other instanceof Dice) {
      return new Dice([...this.terms, ...other.terms], this.bonus + other.bonus, [...this.parts, ...other.parts]);
    }
    return new Dice(this.terms, this.bonus + BigInt(other), this.parts);
  }

  withDice(delta) {
    delta = BigInt(delta);
    if (this.terms.length) {
      const [count, sides] = this.terms[0];
      const kept = count + delta > 1n ? count + delta : 1n;
      return new Dice([[kept, sides], ...this.terms.slice(1)], this.bonus, this.parts);
    }
    if (this.parts.length) {
      const first = partRebuilt(this.parts[0], (d) => d.withDice(delta), delta, 0n);
      return new Dice(this.terms, this.bonus, [first, ...this.parts.slice(1)]);
    }
    return this;
  }

  firstCount() {
    if (this.terms.length) return this.terms[0][0];
    if (!this.parts.length) return 0n;
    const first = this.parts[0];
    if (first instanceof Pooled) return first.groups[0].count;
    return (first instanceof Extreme ? first.first : first.dice).firstCount();
  }

  stepped(steps) {
    return new Dice(
      this.terms.map(([count, sides]) => [count, stepDie(sides, steps)]),
      this.bonus,
      this.parts.map((p) => partRebuilt(p, (d) => d.stepped(steps), 0n, BigInt(steps))),
    );
  }

  scaled(factor, rounding) {
    if (this.constant) {
      const value = mul(this.bonus, factor);
      if (typeof value !== "bigint" && rounding === null) {
        throw new RuleInputError(`${this} * ${show(factor)} is not a whole number: say how to round it`);
      }
      return new Dice([], roundValue(value, rounding || "down"));
    }
    if (cmp(factor, 1n) === 0) return this;
    return new Dice([], 0n, [new Scaled(this, factor, rounding)]);
  }

  clamped(op, bound) {
    bound = BigInt(bound);
    if (this.constant) {
      const keep = op === "max" ? (this.bonus > bound ? this.bonus : bound) : this.bonus < bound ? this.bonus : bound;
      return new Dice([], keep);
    }
    return new Dice([], 0n, [new Clamped(this, op, bound)]);
  }

  /** The exact chance of every total: a Map of BigInt total -> Fraction, lowest first.  Dice
   * that explode without end are worked out up to `horizon` (every higher total gathered at
   * `horizon + 1`). */
  totals(limit = 1000000, horizon = null) {
    this.checkSize();
    let [result, denominator] = this.weights(horizon, new Map(), limit);
    if (horizon !== null && !this.bounded) result = gathered(result, horizon);
    const sorted = [...result.keys()].sort(compareBig).filter((total) => result.get(total));
    return new Map(sorted.map((total) => [total, frac(result.get(total), denominator)]));
  }

  /** [Map total -> whole weight, denominator]; `condition`: Map name -> the face that named die
   * shows first. */
  weights(horizon, condition, limit) {
    let ways = [1n];
    let low = this.bonus;
    let denominator = 1n;
    for (const [count, sides] of this.terms) {
      ways = addDice(ways, count, sides);
      low += count;
      denominator *= sides ** count;
    }
    let result = new Map();
    ways.forEach((way, index) => {
      if (way) result.set(low + BigInt(index), way);
    });
    const lowest = this.lowest;
    for (const part of this.parts) {
      const reach = horizon === null ? null : horizon - (lowest - partLow(part));
      const [piece, scale] = partWeights(part, reach, condition, limit);
      if (result.size * piece.size > limit) throw new RangeError(`${this} has too many totals to work out exactly`);
      result = convolveWeights(result, piece);
      denominator *= scale;
    }
    return [result, denominator];
  }

  /** The chance of each (naturals, total), as a Map of "n1,n2,...|total" -> [naturals, total,
   * Fraction]: for each of `names`, the face that named die shows first; for null, the dice
   * alone (faces before explosions and re-rolls, without the numbers added). */
  naturals(names, horizon = null, limit = 1000000) {
    this.checkSize();
    const counted = [...new Set(names.filter((name) => showingWithin(name) !== null))];
    const named = [...new Set(names.filter((name) => name !== null && !counted.includes(name)))];
    if (counted.length > 1) {
      throw new RangeError(
        `the tiers of ${this} count the dice showing ${counted[0].slice(SHOWING.length)} and showing` +
          ` ${counted[1].slice(SHOWING.length)}: a roll's tiers count the dice showing one set of faces`,
      );
    }
    if (counted.length && names.includes(null)) {
      throw new RangeError(
        `the tiers of ${this} read both the dice alone and how many dice show` +
          ` ${counted[0].slice(SHOWING.length)}: a roll's tiers read one or the other`,
      );
    }
    const groups = new Map(this.groups().filter((g) => g.name !== null).map((g) => [g.name, g]));
    const missing = named.filter((name) => !groups.has(name));
    if (missing.length) throw new RangeError(`${this} has no die named ${missing[0]}`);
    const found = new Map();
    let denominator = 1n;
    for (const faces of productOf(named.map((name) => groups.get(name).faces))) {
      const condition = new Map(named.map((name, i) => [name, faces[i]]));
      let joint;
      if (counted.length) {
        [joint, denominator] = this.shownWeights(showingWithin(counted[0]), condition, limit);
      } else if (names.includes(null)) {
        [joint, denominator] = this.jointWeights(horizon, condition, limit);
      } else {
        let weights;
        [weights, denominator] = this.weights(horizon, condition, limit);
        joint = new Map([...weights].map(([total, weight]) => [`0,${total}`, [0n, total, weight]]));
      }
      for (const [natural, rolled, weight] of joint.values()) {
        let total = rolled;
        if (horizon !== null && !this.bounded && total > horizon) total = horizon + 1n;
        const key = names.map((name) => (name === null || counted.includes(name) ? natural : condition.get(name)));
        const text = `${key.join(",")}|${total}`;
        const had = found.get(text);
        found.set(text, [key, total, (had ? had[2] : 0n) + weight]);
      }
    }
    const rows = [...found.values()].filter(([, , w]) => w).sort(compareRows);
    return rows.map(([key, total, weight]) => [key, total, frac(weight, denominator)]);
  }

  /** [Map "natural,total" -> [natural, total, weight], denominator]: the dice alone leave out
   * the bonus and show the faces before explosions and re-rolls. */
  jointWeights(horizon, condition, limit) {
    let ways = [1n];
    let low = 0n;
    let denominator = 1n;
    for (const [count, sides] of this.terms) {
      ways = addDice(ways, count, sides);
      low += count;
      denominator *= sides ** count;
    }
    let result = new Map();
    ways.forEach((way, index) => {
      const natural = low + BigInt(index);
      if (way) result.set(`${natural},${natural + this.bonus}`, [natural, natural + this.bonus, way]);
    });
    const lowest = this.lowest;
    for (const part of this.parts) {
      const reach = horizon === null ? null : horizon - (lowest - partLow(part));
      let piece;
      let scale;
      if (part instanceof Pooled && !partPlain(part)) {
        let pairs;
        [pairs, scale] = part.joint(reach, condition);
        piece = [...pairs].map(([key, w]) => [...key.split(",").map(BigInt), w]);
      } else if (partPlain(part)) {
        let weights;
        [weights, scale] = partWeights(part, reach, condition, limit);
        piece = [...weights].map(([value, w]) => [value, value, w]);
      } else {
        throw new RangeError(
          `the natural result of \`${part.text()}\` is not defined: its dice change after they are rolled;` +
            " name the die and read `natural N on NAME`",
        );
      }
      if (result.size * piece.length > limit) throw new RangeError(`${this} has too many totals to work out exactly`);
      result = convolvePairs(result.values(), piece);
      denominator *= scale;
    }
    return [result, denominator];
  }

  /** [Map "shown,total" -> [shown, total, weight], denominator]: how many of the expression's
   * dice show a value within `within` (kept or not), beside the total (dice.py shown_weights). */
  shownWeights(within, condition, limit) {
    if (!this.bounded) {
      const unbounded = this.groups().find((g) => !g.bounded);
      throw new RangeError(`how many dice of ${unbounded.text()} show ${facesText(...within)} is not worked out: bound its explosions`);
    }
    let result = new Map([[`0,${this.bonus}`, [0n, this.bonus, 1n]]]);
    let denominator = 1n;
    const pieces = this.terms.map(([count, sides]) => new Pooled([new Group(count, sides)]));
    for (const part of [...pieces, ...this.parts]) {
      let piece;
      let scale;
      if (part instanceof Pooled) {
        [piece, scale] = part.shown(within, condition);
      } else if (part instanceof Extreme) {
        const [first, a] = part.first.shownWeights(within, condition, limit);
        const [second, b] = part.second.shownWeights(within, condition, limit);
        const pick = part.op === "max" ? (x, y) => (x > y ? x : y) : (x, y) => (x < y ? x : y);
        piece = new Map();
        scale = a * b;
        for (const [c1, v1, w1] of first.values()) {
          for (const [c2, v2, w2] of second.values()) {
            const key = `${c1 + c2},${pick(v1, v2)}`;
            const had = piece.get(key);
            piece.set(key, [c1 + c2, pick(v1, v2), (had ? had[2] : 0n) + w1 * w2]);
          }
        }
      } else {
        let inner;
        [inner, scale] = part.dice.shownWeights(within, condition, limit);
        piece = new Map();
        for (const [count, total, weight] of inner.values()) {
          const value = part.value(total);
          const key = `${count},${value}`;
          const had = piece.get(key);
          piece.set(key, [count, value, (had ? had[2] : 0n) + weight]);
        }
      }
      if (result.size * piece.size > limit) throw new RangeError(`${this} has too many totals to work out exactly`);
      result = convolvePairs(result.values(), piece.values());
      denominator *= scale;
    }
    return [result, denominator];
  }

  /** The groups of dice of every pool in the expression (plain terms are not among them). */
  groups() {
    const found = [];
    for (const part of this.parts) {
      if (part instanceof Pooled) found.push(...part.groups);
      else if (part instanceof Extreme) found.push(...part.first.groups(), ...part.second.groups());
      else found.push(...part.dice.groups());
    }
    return found;
  }

  get bounded() {
    return this.groups().every((g) => g.bounded);
  }

  get lowest() {
    return (
      this.bonus + this.terms.reduce((sum, [count]) => sum + count, 0n) + this.parts.reduce((s, p) => s + partLow(p), 0n)
    );
  }

  checkSize() {
    for (const [count, sides] of this.terms) {
      if (count > MAX_POOL_DICE || sides > MAX_POOL_SIDES) {
        throw new RangeError(
          `${this} has too many totals to work out exactly: at most ${MAX_POOL_DICE} dice of at most ${MAX_POOL_SIDES} sides in a pool`,
        );
      }
    }
    const dice = this.terms.reduce((sum, [count]) => sum + count, 0n);
    const span = 1n + this.terms.reduce((sum, [count, sides]) => sum + count * (sides - 1n), 0n);
    if (dice * span > MAX_DICE_WORK) {
      throw new RangeError(
        `${this} has too many totals to work out exactly: ${dice} dice with ${grouped(span)} possible totals` +
          ` (dice times totals at most ${grouped(MAX_DICE_WORK)})`,
      );
    }
    for (const part of this.parts) {
      if (part instanceof Pooled) {
        for (const group of part.groups) {
          if (group.count > MAX_POOL_DICE || group.sides > MAX_POOL_SIDES) {
            throw new RangeError(
              `${this} has too many totals to work out exactly: at most ${MAX_POOL_DICE} dice of at` +
                ` most ${MAX_POOL_SIDES} sides in a pool`,
            );
          }
        }
      } else if (part instanceof Extreme) {
        part.first.checkSize();
        part.second.checkSize();
      } else {
        part.dice.checkSize();
      }
    }
  }

  chances() {
    return Chances.of(this);
  }
}

function compareBig(x, y) {
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareRows([a, ta], [b, tb]) {
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return compareBig(a[i], b[i]);
  return compareBig(ta, tb);
}

function* productOf(lists) {
  if (!lists.length) {
    yield [];
    return;
  }
  const [head, ...rest] = lists;
  for (const item of head) for (const tail of productOf(rest)) yield [item, ...tail];
}

/** The better (`max`) or worse (`min`) of two dice values rolled apart. */
export class Extreme {
  constructor(op, first, second) {
    this.op = op;
    this.first = first;
    this.second = second;
    Object.freeze(this);
  }
  text() {
    return `${this.op}(${this.first}, ${this.second})`;
  }
}

/** A part with its dice changed (dice.py part_rebuilt). */
export function partRebuilt(part, change, delta, steps) {
  if (part instanceof Extreme) {
    const second = delta ? part.second : change(part.second);
    return new Extreme(part.op, change(part.first), second);
  }
  if (part instanceof Pooled) {
    let groups = [...part.groups];
    if (delta) {
      const first = groups[0];
      groups[0] = first.with({ count: first.count + delta > 1n ? first.count + delta : 1n });
    }
    if (steps) groups = groups.map((g) => (g.fate ? g : g.with({ sides: stepDie(g.sides, steps), reroll: null })));
    const size = groups.reduce((sum, g) => sum + g.count, 0n);
    return new Pooled(groups, part.reading, part.kept < size ? part.kept : size, part.within, part.side, part.trigger, {
      ignoring: part.ignoring,
      keep: part.keep,
      otherwise: part.otherwise,
    });
  }
  return part.rebuilt(change(part.dice));
}

export function partLow(part) {
  if (part instanceof Pooled) return part.low;
  if (part instanceof Extreme) {
    const first = part.first.lowest;
    const second = part.second.lowest;
    return part.op === "max" ? (first > second ? first : second) : first < second ? first : second;
  }
  if (part instanceof Scaled && cmp(part.factor, 0n) < 0) {
    const high = diceHigh(part.dice);
    if (high === null) throw new RangeError(`${part.text()}: dice without a highest total cannot be subtracted`);
    return part.value(high);
  }
  return part.value(part.dice.lowest);
}

/** The highest total of a dice expression (null when a die in it explodes without end). */
export function diceHigh(dice) {
  if (!dice.bounded) return null;
  let total = dice.bonus + dice.terms.reduce((sum, [count, sides]) => sum + count * sides, 0n);
  for (const part of dice.parts) {
    let high;
    if (part instanceof Pooled) high = part.high;
    else if (part instanceof Extreme) {
      const first = diceHigh(part.first);
      const second = diceHigh(part.second);
      high = part.op === "max" ? (first > second ? first : second) : first < second ? first : second;
    } else if (part instanceof Scaled && cmp(part.factor, 0n) < 0) high = part.value(part.dice.lowest);
    else high = part.value(diceHigh(part.dice));
    total += high;
  }
  return total;
}

export function partPlain(part) {
  if (part instanceof Pooled) return part.plain;
  if (part instanceof Extreme) return [...part.first.groups(), ...part.second.groups()].every((g) => g.plain);
  return part.dice.groups().every((g) => g.plain);
}

/** [Map value -> whole weight, denominator] of a part (dice.py part_weights). */
export function partWeights(part, horizon, condition, limit) {
  if (part instanceof Pooled) return part.weights(horizon, condition);
  if (part instanceof Extreme) {
    const [first, a] = part.first.weights(horizon, condition, limit);
    const [second, b] = part.second.weights(horizon, condition, limit);
    return [extreme(first, second, part.op), a * b];
  }
  let innerHorizon = horizon;
  if (part instanceof Scaled) {
    if (cmp(part.factor, 0n) < 0) {
      if (!part.dice.bounded) throw new RangeError(`${part.text()}: dice without a highest total cannot be subtracted`);
      innerHorizon = null;
    } else if (horizon !== null) {
      innerHorizon = ceil(div(horizon + 1n, part.factor));
    }
  }
  const [weights, denominator] = part.dice.weights(innerHorizon, condition, limit);
  const piece = new Map();
  for (const [total, weight] of weights) {
    const key = part.value(total);
    piece.set(key, (piece.get(key) ?? 0n) + weight);
  }
  return [piece, denominator];
}

function extreme(first, second, op) {
  const values = [...new Set([...first.keys(), ...second.keys()])].sort(compareBig);
  if (op === "min") values.reverse();
  const found = new Map();
  let belowFirst = 0n;
  let belowSecond = 0n;
  for (const value of values) {
    const a = first.get(value) ?? 0n;
    const b = second.get(value) ?? 0n;
    const weight = a * belowSecond + b * belowFirst + a * b;
    if (weight) found.set(value, weight);
    belowFirst += a;
    belowSecond += b;
  }
  return found;
}

function gathered(weights, horizon) {
  const found = new Map();
  for (const [total, weight] of weights) {
    const key = total < horizon + 1n ? total : horizon + 1n;
    found.set(key, (found.get(key) ?? 0n) + weight);
  }
  return found;
}

/** A pool written as a rulebook writes it (`3d6`, `highest 3 of 5d10`, `4dF`, `exploding d6`). */
export function poolDice(count, sides, keep) {
  count = BigInt(count);
  sides = BigInt(sides);
  if (keep === null) return Dice.pool(count, sides);
  if (keep === "fate") return new Dice([], 0n, [new Pooled([new Group(count, 3n, { fate: true })])]);
  if (keep === "exploding") return new Dice([], 0n, [new Pooled([new Group(count, sides, { explode: UNBOUNDED })])]);
  const [side, kept] = keep.split(" ");
  return new Dice([], 0n, [
    new Pooled([new Group(count, sides)], side === "highest" ? "highest" : "lowest", kept ? BigInt(kept) : 1n),
  ]);
}

/** `exploding 3d6`, `exploding (skill) d10 at most 4 times` (null: without end). */
export function explodingDice(dice, times = null) {
  if (dice.bonus || dice.parts.length) throw new RuleInputError(`only dice explode, not ${dice}`);
  if (times !== null && (typeof times !== "bigint" || times < 1n)) {
    throw new RuleInputError(`dice explode a whole number of times, at least once, not ${show(times)}`);
  }
  const explode = times === null ? UNBOUNDED : times;
  return new Dice(
    [],
    0n,
    dice.terms.map(([count, sides]) => new Pooled([new Group(count, sides, { explode })])),
  );
}

/** `highest 3 of (ring + skill) d10`: the sum of the `kept` highest (or lowest) dice of a pool;
 * `ignoring` ([low, high] or null): the faces of dice the keep passes over (Cortex's hitches). */
export function keptDice(dice, side, kept = null, ignoring = null) {
  if (noDice(dice)) return dice; // no dice keep none: 0, as their sum and their count are
  return new Dice([], 0n, [keepPool(dice, side, kept, ignoring, `the ${side} dice are kept from`)]);
}

/** `largest die left by highest 2 of (d6 + d8 + d8) ignoring 1 else 4`: the size of the largest
 * die the keep leaves, `otherwise` when it leaves none (Cortex's effect die; dice.py left_die). */
export function leftDie(dice, side, kept, ignoring, otherwise) {
  if (noDice(dice)) return new Dice([], otherwise);
  const pool = keepPool(dice, side, kept, ignoring, "the dice a keep leaves are read from");
  return new Dice([], 0n, [
    pooled(pool.groups, "left", pool.kept, [null, null], 0, null, { ignoring, keep: side, otherwise }),
  ]);
}

function keepPool(dice, side, kept, ignoring, what) {
  const groups = poolGroups(dice, what);
  if (kept !== null && (typeof kept !== "bigint" || kept < 1n)) {
    throw new RuleInputError(`at least one whole die is kept, not ${show(kept)}`);
  }
  const size = groups.reduce((sum, g) => sum + g.count, 0n);
  const keep = kept === null ? 1n : kept;
  return pooled(groups, side, keep < size ? keep : size, [null, null], 0, null, { ignoring });
}

/** `exploding d6 as wild`: one die with a name, whose first face `natural N on wild` reads. */
export function namedDie(dice, name) {
  if (dice.terms.length === 1 && dice.terms[0][0] === 1n && !dice.bonus && !dice.parts.length) {
    return new Dice([], 0n, [new Pooled([new Group(1n, dice.terms[0][1], { name })])]);
  }
  if (!dice.terms.length && !dice.bonus && dice.parts.length === 1) {
    const part = dice.parts[0];
    if (part instanceof Pooled && part.reading === "sum" && part.groups[0].count === 1n) {
      return new Dice([], 0n, [new Pooled([part.groups[0].with({ name })])]);
    }
  }
  throw new RuleInputError(`a name belongs to one die, not to ${dice}`);
}

/** `opposed 3d6 vs 2d6 by pairs`: each side's dice sorted and paired highest against highest
 * (RISK); how many pairs the first side wins, a tie going to the second. */
export function pairedDice(first, second) {
  const both = [first, second].map((dice) => poolGroups(dice, "pairs are won by"));
  return new Dice([], 0n, [pooled([...both[0], ...both[1]], "pairs", 1n, [null, null], both[0].length)]);
}

/** The groups of dice added together (plain, exploding, named, re-rolled), else an error saying
 * `what` needs them. */
/** A pool of no dice: `(n) d6` at n = 0. */
function noDice(dice) {
  return dice.terms.length === 0 && dice.parts.length === 0 && dice.bonus === 0n;
}

function poolGroups(dice, what) {
  const groups = dice.terms.map(([count, sides]) => new Group(count, sides));
  for (const part of dice.parts) {
    if (!(part instanceof Pooled) || part.reading !== "sum") throw new RuleInputError(`${what} dice added together, not ${dice}`);
    groups.push(...part.groups);
  }
  if (dice.bonus || !groups.length) throw new RuleInputError(`${what} dice added together, not ${dice}`);
  return groups;
}

/** A pool whose refusal (a RangeError of pools.js) is the rulebook user's: a RuleInputError. */
function pooled(groups, reading, kept, within, side, trigger = null, more = {}) {
  try {
    return new Pooled(groups, reading, kept, within, side, trigger, more);
  } catch (error) {
    if (error instanceof RangeError) throw new RuleInputError(error.message);
    throw error;
  }
}

/** `5d6 showing 6`, `(ndice) d6 showing at least 5`: how many dice of a pool show a face from
 * `low` to `high` (null: open), each die by the value it ends on (after explosions, re-rolls). */
export function countedDice(dice, low, high) {
  if (noDice(dice)) return dice; // no dice show no face: the count is 0
  const groups = poolGroups(dice, "a count of faces reads");
  return new Dice([], 0n, [pooled(groups, "count", 1n, [low, high])]);
}

/** `(2d6 + exploding d6 as wild) cancelling highest when natural 1 on wild`: the dice added
 * together, except that when the die `name` first shows a face from `low` to `high` (null: open),
 * it and the highest of the other dice are taken away (OpenD6's Wild Die on a 1). */
export function cancelledDice(dice, name, low, high) {
  const groups = poolGroups(dice, "a named die cancels");
  return new Dice([], 0n, [pooled(groups, "cancel", 1n, [low, high], 0, name)]);
}

/** `5d6 rerolling 2..5`: each die showing a face from `low` to `high` (null: open) rolled once
 * more, the second roll standing (a push: the dice that are not 6s, the 1s kept as banes). */
export function rerolledDice(dice, low, high) {
  if (noDice(dice)) return dice; // no dice have none to re-roll
  const changed = poolGroups(dice, "a re-roll takes").map((group) => {
    if (group.reroll !== null) throw new RuleInputError(`${group.text()} is already re-rolled`);
    const faces = group.faces;
    const span = [low === null ? faces[0] : low, high === null ? faces[faces.length - 1] : high];
    try {
      return group.with({ reroll: span });
    } catch (error) {
      if (error instanceof RangeError) throw new RuleInputError(error.message);
      throw error;
    }
  });
  return new Dice([], 0n, changed.map((group) => new Pooled([group])));
}

function grouped(value) {
  return value.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function toBig(value) {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  return null;
}

export class Scaled {
  constructor(dice, factor, rounding) {
    this.dice = dice;
    this.factor = factor;
    this.rounding = rounding;
    Object.freeze(this);
  }
  text() {
    let inner = String(this.dice);
    // in brackets unless one pool (`2d6/2`): `(1d4 rerolling 1)/2`, `(2d6*3)/2` read back as written
    if (!(this.dice.terms.length === 1 && !this.dice.parts.length && !this.dice.bonus)) inner = `(${inner})`;
    const [n, d] = parts(this.factor);
    const scale = n === 1n ? `/${d}` : d === 1n ? `*${n}` : `*${n}/${d}`; // as Python writes a Fraction
    return inner + scale + (this.rounding ? ` round ${this.rounding}` : "");
  }
  value(total) {
    const scaled = mul(total, this.factor);
    if (this.rounding) return roundValue(scaled, this.rounding);
    const [n, d] = parts(scaled);
    return n / d; // int(): towards zero
  }
  rebuilt(dice) {
    return new Scaled(dice, this.factor, this.rounding);
  }
}

export class Clamped {
  constructor(dice, op, bound) {
    this.dice = dice;
    this.op = op;
    this.bound = bound;
    Object.freeze(this);
  }
  text() {
    return `${this.op}(${this.dice}, ${this.bound})`;
  }
  value(total) {
    if (this.op === "max") return total > this.bound ? total : this.bound;
    return total < this.bound ? total : this.bound;
  }
  rebuilt(dice) {
    return new Clamped(dice, this.op, this.bound);
  }
}

const TOKEN =
  /\s*(?:(?<pool>(?<count>\d*)[dD](?<sides>\d+|[fF])(?![A-Za-z0-9_]))|(?<number>\d+)(?:\/(?<denominator>\d+))?|(?<range>\.\.)|(?<word>[A-Za-z_][A-Za-z0-9_]*)|(?<mark>[-+*/(),]))/y;

/** Reads the notation `Dice.toString` writes, the language's own for dice (dice.py
 * `_DiceReader`, form for form): each form built by the functions the resolvers call, the dice
 * a keep, count or pair reads kept in the order written, so `Dice.parse(String(d))` is `d`. */
class DiceReader {
  constructor(text) {
    this.text = text;
    this.tokens = [];
    let position = 0;
    const stripped = text.trimEnd();
    while (position < stripped.length) {
      TOKEN.lastIndex = position;
      const match = TOKEN.exec(stripped);
      if (match === null || TOKEN.lastIndex === position) throw new RuleInputError(`cannot read dice \`${clip(text)}\``);
      if (match.slice(1).some((group) => group && group.length > MAX_DIGITS)) {
        throw new RuleInputError(`a number in dice has at most ${MAX_DIGITS} digits`);
      }
      position = TOKEN.lastIndex;
      const found = match.groups;
      if (found.pool !== undefined) this.tokens.push(["pool", [found.count || "1", found.sides]]);
      else if (found.number !== undefined) this.tokens.push(["number", [found.number, found.denominator || "1"]]);
      else if (found.range !== undefined) this.tokens.push(["..", []]);
      else if (found.word !== undefined) this.tokens.push(["word", [found.word]]);
      else this.tokens.push([found.mark, []]);
    }
    if (!this.tokens.length) throw new RuleInputError("empty dice expression");
    this.index = 0;
  }
  fail(why = "") {
    return new RuleInputError(`cannot read dice \`${clip(this.text)}\`` + (why ? `: ${why}` : ""));
  }
  peek(ahead = 0) {
    const at = this.index + ahead;
    return at < this.tokens.length ? this.tokens[at] : ["end", []];
  }
  atWord(...words) {
    const [kind, values] = this.peek();
    return kind === "word" && words.includes(values[0].toLowerCase());
  }
  take() {
    if (this.index >= this.tokens.length) throw this.fail("it ends too soon");
    return this.tokens[this.index++];
  }
  expect(kind, word = null, why = "") {
    if (this.index >= this.tokens.length && why) throw this.fail(why);
    const [found, values] = this.take();
    if (found !== kind || (word !== null && values[0].toLowerCase() !== word)) {
      throw this.fail(why || `expected \`${word || kind}\` after \`${this.before()}\``);
    }
    return values;
  }
  before(taken = 1) {
    const shownTokens = this.tokens.slice(Math.max(this.index - 3 - taken, 0), this.index - taken).map(([kind, values]) => {
      if (kind === "pool") return `${values[0]}d${values[1]}`;
      if (kind === "number") return values[1] === "1" ? values[0] : `${values[0]}/${values[1]}`;
      return kind === "word" ? values[0] : kind;
    });
    return shownTokens.join(" ") || clip(this.text);
  }
  whole(why) {
    const negative = this.peek()[0] === "-";
    if (negative) this.take();
    const [kind, values] = this.take();
    if (kind !== "number" || values[1] !== "1") throw this.fail(why);
    return negative ? -BigInt(values[0]) : BigInt(values[0]);
  }
  end() {
    if (this.index !== this.tokens.length) {
      const [kind, values] = this.tokens[this.index];
      const after = kind === "word" || kind === "number" ? values[0] : kind === "pool" ? `${values[0]}d${values[1]}` : kind;
      throw this.fail(`\`${after}\` is not understood`);
    }
  }
  expression() {
    return this.sum()[0];
  }
  /** [dice, the groups of dice in the order written, or null]. */
  sum() {
    let [value, groups] = this.term(1n);
    while (this.peek()[0] === "+" || this.peek()[0] === "-") {
      const sign = this.take()[0] === "+" ? 1n : -1n;
      const [item, more] = this.term(sign);
      value = value.plus(item);
      groups = groups === null || more === null ? null : [...groups, ...more];
    }
    if (this.peek()[0] !== "*" && this.peek()[0] !== "/") return [value, groups];
    while (this.peek()[0] === "*" || this.peek()[0] === "/") value = this.scale(value); // scaled, then scaled again
    return [value, null];
  }
  term(sign) {
    if (this.peek()[0] === "number" || (sign === 1n && this.peek()[0] === "-")) {
      return [new Dice([], sign * this.whole("a bonus is a whole number")), null];
    }
    if (sign < 0n) throw this.fail("dice are added, not subtracted");
    return this.postfix();
  }
  postfix() {
    let [value, groups] = this.primary();
    while (this.atWord("showing", "rerolling", "as", "cancelling")) {
      const word = this.take()[1][0].toLowerCase();
      if (word === "as") {
        value = namedDie(value, this.expect("word", null, "a die's name follows `as`")[0]);
      } else if (word === "cancelling") {
        const why = "`DICE cancelling highest when natural N on NAME`";
        for (const expected of ["highest", "when", "natural"]) this.expect("word", expected, why);
        const [low, high] = this.faces("natural");
        this.expect("word", "on", why);
        const name = this.expect("word", null, why)[0];
        value = cancelledDice(ordered(value, groups), name, low, high);
      } else {
        const [low, high] = this.faces(word);
        const dice = ordered(value, groups);
        value = word === "showing" ? countedDice(dice, low, high) : rerolledDice(dice, low, high);
      }
      groups = sumGroups(value);
    }
    return [value, groups];
  }
  /** `6`, `2..5`, `at least 5`, `at most 2`: [low, high], null for no bound. */
  faces(word) {
    const why = `\`${word}\` is followed by faces: \`6\`, \`2..5\`, \`at least 5\` or \`at most 2\``;
    if (this.atWord("at")) {
      this.take();
      if (this.atWord("least")) {
        this.take();
        return [this.whole(why), null];
      }
      this.expect("word", "most", why);
      return [null, this.whole(why)];
    }
    const low = this.whole(why);
    if (this.peek()[0] !== "..") return [low, low];
    this.take();
    return [low, this.whole(why)];
  }
  primary() {
    const [kind, values] = this.take();
    if (kind === "pool") {
      const count = BigInt(values[0]);
      const sides = values[1];
      let value;
      if (sides === "f" || sides === "F") {
        if (count < 1n) throw this.fail(`\`${count}dF\` is not a roll anyone can make`);
        value = poolDice(count, 3n, "fate");
      } else {
        if (count < 1n || BigInt(sides) < 2n) throw this.fail(`\`${count}d${sides}\` is not a roll anyone can make`);
        value = new Dice([[count, BigInt(sides)]]);
      }
      return [value, sumGroups(value)];
    }
    if (kind === "(") {
      const inner = this.sum();
      this.expect(")", null, "a bracket is not closed");
      return inner;
    }
    if (kind !== "word") throw this.fail();
    const word = values[0].toLowerCase();
    if ((word === "max" || word === "min") && this.peek()[0] === "(") return [this.extreme(word), null];
    if (word === "exploding") {
      const [dice] = this.operand();
      let times = null;
      if (this.atWord("at")) {
        this.take();
        this.expect("word", "most", "`exploding DICE at most N times`");
        times = this.whole("`exploding DICE at most N times`");
        if (!this.atWord("time", "times")) throw this.fail("`exploding DICE at most N times`");
        this.take();
      }
      const value = explodingDice(dice, times);
      return [value, sumGroups(value)];
    }
    if (word === "highest" || word === "lowest") {
      const [kept, ignoring, operand] = this.keep(word);
      return [keptDice(operand, word, kept, ignoring), null];
    }
    if (word === "largest") {
      const why = "`largest die left by highest N of DICE else N`";
      for (const expected of ["die", "left", "by"]) this.expect("word", expected, why);
      if (!this.atWord("highest", "lowest")) throw this.fail(why);
      const side = this.take()[1][0].toLowerCase();
      const [kept, ignoring, operand] = this.keep(side);
      this.expect("word", "else", why);
      return [leftDie(operand, side, kept, ignoring, this.whole(why)), null];
    }
    if (word === "matches") {
      this.expect("word", "of", "`matches of DICE`");
      const dice = ordered(...this.operand());
      const groups = sumGroups(dice);
      if (groups === null || !groups.length) throw new RuleInputError(`the matching faces are read from dice added together, not ${dice}`);
      return [new Dice([], 0n, [new Pooled(groups, "matches")]), null];
    }
    if (word === "opposed") {
      const first = ordered(...this.operand());
      this.expect("word", "vs", "`opposed DICE vs DICE by pairs`");
      const second = ordered(...this.operand());
      this.expect("word", "by", "`opposed DICE vs DICE by pairs`");
      this.expect("word", "pairs", "`opposed DICE vs DICE by pairs`");
      return [pairedDice(first, second), null];
    }
    throw this.fail(`\`${values[0]}\` is not part of dice`);
  }
  /** After `highest` or `lowest`: [how many are kept, the faces passed over, the dice]. */
  keep(word) {
    const kept = this.atWord("of") ? null : this.whole(`\`${word} N of DICE\``);
    this.expect("word", "of", `\`${word} N of DICE\``);
    const operand = ordered(...this.operand());
    let ignoring = null;
    if (this.atWord("ignoring")) {
      this.take();
      ignoring = this.faces("ignoring");
    }
    return [kept, ignoring, operand];
  }
  operand() {
    if (this.peek()[0] === "pool" || this.peek()[0] === "(" || this.atWord("exploding")) return this.primary();
    throw this.fail(`dice are expected after \`${this.before(0)}\``);
  }
  extreme(op) {
    this.expect("(");
    const first = this.expression();
    this.expect(",", null, `${op}(DICE, DICE) or ${op}(DICE, NUMBER)`);
    const second = this.expression();
    this.expect(")", null, `${op}(DICE, DICE) or ${op}(DICE, NUMBER)`);
    return clampDice(op, first, second);
  }
  scale(value) {
    const operator = this.take()[0];
    const negative = this.peek()[0] === "-";
    if (negative) this.take();
    const [kind, values] = this.take();
    if (kind !== "number") throw this.fail("dice are scaled by a number");
    let factor = frac((negative ? -1n : 1n) * BigInt(values[0]), BigInt(values[1]));
    if (operator === "/") {
      if (cmp(factor, 0n) === 0) throw this.fail("division by zero");
      const [n, d] = parts(factor);
      factor = frac(d, n);
    }
    let rounding = null;
    if (this.atWord("round")) {
      this.take();
      if (!this.atWord("up", "down", "nearest")) throw this.fail("`round up`, `round down` or `round nearest`");
      rounding = this.take()[1][0].toLowerCase();
    }
    if (rounding === null && typeof factor !== "bigint") throw this.fail("say how the division rounds");
    if (value.constant) return value.scaled(factor, rounding);
    return new Dice([], 0n, [new Scaled(value, factor, rounding)]);
  }
}

/** The groups of dice a value adds together (its plain pools first), or null (dice.py _sum_groups). */
function sumGroups(value) {
  if (value.bonus) return null;
  const groups = value.terms.map(([count, sides]) => new Group(count, sides));
  for (const part of value.parts) {
    if (!(part instanceof Pooled) || part.reading !== "sum") return null;
    groups.push(...part.groups);
  }
  return groups;
}

/** The dice as written, each group a part of its own in order; else the value itself. */
function ordered(value, groups) {
  return groups === null ? value : new Dice([], 0n, groups.map((group) => new Pooled([group])));
}

export function stepDie(sides, steps) {
  const at = DIE_LADDER.indexOf(sides);
  if (at < 0) return sides;
  const index = Math.min(Math.max(at + Number(steps), 0), DIE_LADDER.length - 1);
  return DIE_LADDER[index];
}

/** The exact distribution of a dice total: `atMost[i]` outcomes give a total <= low + i. */
export class Distribution {
  constructor(low, denominator, atMost, limit = null, uniform = null) {
    this.low = low;
    this.denominator = denominator;
    this.atMost = atMost;
    this.limit = limit;
    this.uniform = uniform;
  }
  get high() {
    return this.low + BigInt(this.atMost.length) - 1n;
  }
  countAtMost(total) {
    const index = total - this.low;
    if (index < 0n) return 0n;
    if (index >= BigInt(this.atMost.length)) {
      if (this.limit !== null) throw new RuleInputError(`the chance of totals above ${this.limit} was not worked out`);
      return this.denominator;
    }
    return this.atMost[Number(index)];
  }
  atMostP(total) {
    return frac(this.countAtMost(floor(total)), this.denominator);
  }
  betweenP(low, high) {
    const below = this.countAtMost(ceil(low) - 1n);
    const count = this.countAtMost(floor(high)) - below;
    return frac(count > 0n ? count : 0n, this.denominator);
  }
  chances() {
    const found = new Map();
    let previous = 0n;
    this.atMost.forEach((cumulative, index) => {
      if (cumulative !== previous) found.set(this.low + BigInt(index), frac(cumulative - previous, this.denominator));
      previous = cumulative;
    });
    return found;
  }
  compareP(op, target) {
    if (op === "<=") return this.atMostP(target);
    if (op === "<") return frac(this.countAtMost(ceil(target) - 1n), this.denominator);
    if (op === ">") return sub(1n, this.atMostP(target));
    if (op === ">=") return sub(1n, frac(this.countAtMost(ceil(target) - 1n), this.denominator));
    const exact = typeof target === "bigint" ? this.betweenP(target, target) : 0n;
    return op === "==" ? exact : sub(1n, exact);
  }
}

export function listedReach(count, sides, keep) {
  return count * sides * (keep === "exploding" ? 2n : 1n);
}

export function distribution(count, sides, keep = null, horizon = null) {
  if (keep === null) return fromWays(count, sides ** count, addDice([1n], count, sides), [count, sides]);
  if (keep === "fate") return fromWays(-count, 3n ** count, addDice([1n], count, 3n), [count, 3n]);
  if (keep === "exploding") return exploding(count, sides, horizon === null ? count : horizon);
  const [side, kept] = keep.split(" ");
  const total = sides ** count;
  if (kept === undefined) {
    const atMost = [];
    for (let x = 1n; x <= sides; x++) atMost.push(side === "highest" ? x ** count : total - (sides - x) ** count);
    return new Distribution(1n, total, atMost);
  }
  return keptSum(count, sides, side, BigInt(kept));
}

export function fromWays(low, denominator, ways, uniform = null) {
  const atMost = [];
  let running = 0n;
  for (const way of ways) {
    running += way;
    atMost.push(running);
  }
  return new Distribution(low, denominator, atMost, null, uniform);
}

function comb(n, k) {
  if (k < 0n || k > n) return 0n;
  let result = 1n;
  for (let i = 0n; i < k; i++) result = (result * (n - i)) / (i + 1n);
  return result;
}

function keptSum(count, sides, side, kept) {
  if (kept > count) kept = count;
  const faces = [];
  if (side === "highest") for (let f = sides; f >= 1n; f--) faces.push(f);
  else for (let f = 1n; f <= sides; f++) faces.push(f);
  let states = new Map([["0,0", [0n, 0n, new Map([[0n, 1n]])]]]);
  for (const face of faces) {
    const following = new Map();
    for (const [placed, taken, sums] of states.values()) {
      for (let showing = 0n; showing <= count - placed; showing++) {
        const ways = comb(count - placed, showing);
        const more = showing < kept - taken ? showing : kept - taken;
        const key = `${placed + showing},${taken + more}`;
        let entry = following.get(key);
        if (entry === undefined) following.set(key, (entry = [placed + showing, taken + more, new Map()]));
        const bucket = entry[2];
        for (const [value, arrangements] of sums) {
          const total = value + more * face;
          bucket.set(total, (bucket.get(total) || 0n) + arrangements * ways);
        }
      }
    }
    states = following;
  }
  const sums = (states.get(`${count},${kept}`) || [0n, 0n, new Map()])[2];
  const keys = [...sums.keys()];
  const low = keys.reduce((a, b) => (b < a ? b : a));
  const high = keys.reduce((a, b) => (b > a ? b : a));
  const ways = [];
  for (let v = low; v <= high; v++) ways.push(sums.get(v) || 0n);
  return fromWays(low, sides ** count, ways);
}

function exploding(count, sides, horizon) {
  if (sides < 2n) throw new RuleInputError("an exploding die has two sides or more");
  if (horizon < count) horizon = count;
  const depth = horizon / sides + 1n;
  const denominator = sides ** (count * depth);
  const size = Number(horizon) + 1;
  const one = new Array(size).fill(0n);
  for (let explosions = 0n; explosions < depth; explosions++) {
    for (let rest = 1n; rest < sides; rest++) {
      const value = sides * explosions + rest;
      if (value <= horizon) one[Number(value)] = sides ** (depth - explosions - 1n);
    }
  }
  const faces = [];
  for (let v = 1; v < size; v++) if (one[v]) faces.push(v);
  let ways = new Array(size).fill(0n);
  ways[0] = 1n;
  for (let die = 0n; die < count; die++) {
    const next = new Array(size).fill(0n);
    for (let t = 0; t < size; t++) {
      let sum = 0n;
      for (const v of faces) {
        if (v > t) break;
        sum += ways[t - v] * one[v];
      }
      next[t] = sum;
    }
    ways = next;
  }
  const found = fromWays(count, denominator, ways.slice(Number(count)));
  return new Distribution(found.low, found.denominator, found.atMost, horizon);
}

export function difference(first, second) {
  const counts = countsOf(first);
  const mirrored = countsOf(second).reverse();
  let ways;
  if (first.uniform !== null) {
    ways = addDice(mirrored, ...first.uniform);
  } else if (second.uniform !== null) {
    ways = addDice(counts, ...second.uniform);
  } else {
    ways = new Array(counts.length + mirrored.length - 1).fill(0n);
    mirrored.forEach((times, offset) => {
      counts.forEach((count, i) => {
        ways[offset + i] += count * times;
      });
    });
  }
  const atMost = [];
  let running = 0n;
  for (const way of ways) {
    running += way;
    atMost.push(running);
  }
  return new Distribution(first.low - second.high, first.denominator * second.denominator, atMost);
}

function addDice(ways, count, sides) {
  const width = Number(sides);
  for (let die = 0n; die < count; die++) {
    const running = [0n];
    for (const way of ways) running.push(running[running.length - 1] + way);
    const last = running[running.length - 1];
    const size = ways.length + width - 1;
    const at = (i) => (i < width - 1 ? 0n : i - (width - 1) < running.length ? running[i - (width - 1)] : last);
    const next = new Array(size);
    for (let i = 0; i < size; i++) next[i] = at(i + width) - at(i);
    ways = next;
  }
  return ways;
}

function countsOf(dist) {
  return dist.atMost.map((value, i) => value - (i ? dist.atMost[i - 1] : 0n));
}

/** The value of an input, stat, derived value or table cell as JSON. */
export function valueJson(value) {
  if (value === null || value === undefined || typeof value === "boolean" || typeof value === "string") return value ?? null;
  if (isNumber(value)) return numberJson(value);
  if (value instanceof Dice) return diceJson(value);
  if (value instanceof Special) return { special: value.text };
  return String(value);
}

export function diceJson(dice) {
  // dice that explode without end have no highest total and no list of totals (dice.py dice_json)
  if (!dice.bounded) {
    return { dice: String(dice), min: numberJson(dice.lowest), max: null, mean: null, distribution: null, at_least: null };
  }
  let totals;
  try {
    totals = dice.totals(MAX_COMBINATIONS);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const [low, high, average] = extent(dice);
    return {
      dice: String(dice),
      min: numberJson(low),
      max: numberJson(high),
      mean: average === null ? null : numberJson(average),
      distribution: null,
      at_least: null,
    };
  }
  let mean = 0n;
  for (const [total, chance] of totals) mean = add(mean, mul(total, chance));
  const keys = [...totals.keys()];
  return {
    dice: String(dice),
    min: numberJson(keys[0]),
    max: numberJson(keys[keys.length - 1]),
    mean: numberJson(mean),
    distribution: keys.map((total) => ({ total: numberJson(total), probability: probabilityJson(totals.get(total)) })),
    at_least: [...atLeastChances(totals)].map(([total, p]) => ({ total: numberJson(total), probability: probabilityJson(p) })),
  };
}

export function poolText(pool, short = false) {
  const [count, sides, keep] = pool;
  if (keep === "fate") return short && count === 1n ? "dF" : `${count}dF`;
  const text = short && count === 1n ? `d${sides}` : `${count}d${sides}`;
  if (keep === "exploding") return `exploding ${text}`;
  return keep ? `${keep} of ${text}` : text;
}

export class Chances {
  /** table: [[total, chance], ...], lowest first. */
  constructor(table) {
    this.table = table;
    Object.freeze(this);
  }
  static of(value) {
    if (value instanceof Chances) return value;
    if (value instanceof Dice) {
      let totals;
      try {
        totals = value.totals(MAX_COMBINATIONS);
      } catch (error) {
        if (error instanceof RangeError) throw new RuleInputError(error.message);
        throw error;
      }
      return new Chances([...totals.entries()]);
    }
    return new Chances([[value, 1n]]);
  }
  get low() {
    return this.table[0][0];
  }
  get high() {
    return this.table[this.table.length - 1][0];
  }
  get mean() {
    let sum = 0n;
    for (const [total, chance] of this.table) sum = add(sum, mul(total, chance));
    return sum;
  }
  chanceThat(op, bound) {
    const tests = {
      "<": (v) => cmp(v, bound) < 0,
      "<=": (v) => cmp(v, bound) <= 0,
      ">": (v) => cmp(v, bound) > 0,
      ">=": (v) => cmp(v, bound) >= 0,
      "==": (v) => cmp(v, bound) === 0,
      "!=": (v) => cmp(v, bound) !== 0,
    };
    let sum = 0n;
    for (const [value, chance] of this.table) if (tests[op](value)) sum = add(sum, chance);
    return sum;
  }
  toDict() {
    const totals = new Map(this.table);
    return {
      min: numberJson(this.low),
      max: numberJson(this.high),
      mean: numberJson(this.mean),
      distribution: this.table.map(([t, p]) => ({ total: numberJson(t), probability: probabilityJson(p) })),
      at_least: [...atLeastChances(totals)].map(([t, p]) => ({ total: numberJson(t), probability: probabilityJson(p) })),
    };
  }
}

/** P(total >= k) for each total k that can come up, lowest first (`totals` a Map). */
export function atLeastChances(totals) {
  const found = new Map();
  let left = 1n;
  const keys = [...totals.keys()].sort(cmp);
  for (const total of keys) {
    found.set(total, left);
    left = sub(left, totals.get(total));
  }
  return found;
}

export function clampDice(op, first, second) {
  // dice that are a number are that number (dice.py clamp_dice)
  [first, second] = [first, second].map((x) => (x instanceof Dice && x.constant ? x.bonus : x));
  if (first instanceof Dice && second instanceof Dice) return new Dice([], 0n, [new Extreme(op, first, second)]);
  const [dice, bound] = first instanceof Dice ? [first, second] : [second, first];
  if (!(dice instanceof Dice) || bound instanceof Dice) throw new RuleInputError(`${op}() keeps one dice value within one number`);
  if (parts(bound)[1] !== 1n) throw new RuleInputError(`${op}() keeps dice within a whole number, not ${show(bound)}`);
  return dice.clamped(op, parts(bound)[0]);
}

/** The lowest, highest and average total of dice too many to list (dice.py _extent). */
function extent(dice) {
  let low = dice.bonus + dice.terms.reduce((sum, [count]) => sum + count, 0n);
  let high = dice.bonus + dice.terms.reduce((sum, [count, sides]) => sum + count * sides, 0n);
  let mean = dice.terms.reduce((sum, [count, sides]) => add(sum, frac(count * (sides + 1n), 2n)), dice.bonus);
  for (const part of dice.parts) {
    if (part instanceof Pooled || part instanceof Extreme) {
      const partHigh = diceHigh(new Dice([], 0n, [part]));
      if (partHigh === null) throw new RangeError(`${dice} has no highest total: a die in it explodes without end`);
      low += partLow(part);
      high += partHigh;
      mean = null;
      continue;
    }
    const [innerLow, innerHigh, innerMean] = extent(part.dice);
    const ends = [part.value(innerLow), part.value(innerHigh)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    low += ends[0];
    high += ends[1];
    let partMean;
    try {
      const chances = part.dice.totals(MAX_COMBINATIONS);
      partMean = 0n;
      for (const [total, chance] of chances) partMean = add(partMean, mul(part.value(total), chance));
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      partMean = innerMean === null ? null : linearMean(part, innerLow, innerHigh, innerMean);
    }
    mean = mean === null || partMean === null ? null : add(mean, partMean);
  }
  return [low, high, mean];
}

function linearMean(part, low, high, mean) {
  if (part instanceof Scaled) return parts(part.factor)[1] === 1n ? mul(mean, part.factor) : null;
  if ((part.op === "max" && part.bound <= low) || (part.op === "min" && part.bound >= high)) return mean;
  if ((part.op === "max" && part.bound >= high) || (part.op === "min" && part.bound <= low)) return part.bound;
  return null;
}
