// Dice rolled (mirrors dsl/runtime/throws.py): every form of the dice algebra thrown die by die
// from a source of faces, each die's faces, explosions and re-rolls kept.  The dice take their
// faces in the order throws.py states: plain dice first, then each part in order (a pool's
// groups in order; the better of two: the first value, then the second); a die takes its first
// face, then its re-roll when that face is re-rolled, then one face per explosion.

import { RuleInputError, clip } from "./base.js";
import { Extreme, partPlain } from "./dice.js";
import { Group, Pooled, UNBOUNDED, withinFaces } from "./pools.js";
import { Xoshiro128 } from "./prng.js";
import { DieRoll } from "./results.js";

export const MAX_FACES_TOLD = 10000;
export const MAX_DIE_SIDES = 2n ** 32n;

/** Faces from rulecraft's generator: a seed, or a `Xoshiro128` an app keeps to roll one situation
 * after another from one stream. */
export class GeneratedFaces {
  constructor(rng) {
    if (rng instanceof Xoshiro128) this.rng = rng;
    else if (typeof rng === "bigint" || (typeof rng === "number" && Number.isSafeInteger(rng))) this.rng = new Xoshiro128(rng);
    else throw new RuleInputError(`rng is a whole-number seed or a Xoshiro128, not ${clip(String(rng))}`);
  }
  face(low, count, die) {
    if (count > MAX_DIE_SIDES) throw new RuleInputError(`a ${die} is not rolled: dice of at most ${MAX_DIE_SIDES} faces are`);
    return low + BigInt(this.rng.below(count));
  }
}

function ordinal(n) {
  const suffix = n % 100 >= 10 && n % 100 <= 20 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th";
  return `${n}${suffix}`;
}

/** Faces rolled elsewhere, in the order the dice take them; each checked against its die. */
export class ToldFaces {
  constructor(roll, faces) {
    if (faces.length > MAX_FACES_TOLD) throw new RuleInputError(`${roll}: at most ${MAX_FACES_TOLD} faces are told, not ${faces.length}`);
    this.roll = roll;
    this.faces = faces;
    this.next = 0;
  }
  face(low, count, die) {
    if (this.next >= this.faces.length) {
      throw new RuleInputError(`${this.roll}: ${this.faces.length} faces told, and the dice take more (the next for a ${die})`);
    }
    const shown = this.faces[this.next];
    if (shown < low || shown >= low + count) {
      throw new RuleInputError(
        `${this.roll}: face ${shown} (the ${ordinal(this.next + 1)} told) is not a face of a ${die} (${low}..${low + count - 1n})`,
      );
    }
    this.next += 1;
    return shown;
  }
  finish() {
    if (this.next !== this.faces.length) {
      throw new RuleInputError(`${this.roll}: ${this.faces.length} faces told, but the dice take ${this.next}`);
    }
  }
}

/** A dice value thrown: { total, natural (null: not defined), named (Map), dice }. */
export function throwDice(dice, faces) {
  let total = dice.bonus;
  let natural = 0n;
  const named = new Map();
  const rolled = [];
  for (const [count, sides] of dice.terms) {
    const die = `d${sides}`;
    for (let i = 0n; i < count; i++) {
      const face = faces.face(1n, sides, die);
      rolled.push(new DieRoll(die, [face], false, 0n, face));
      total += face;
      if (natural !== null) natural += face;
    }
  }
  for (const part of dice.parts) {
    const [value, partNatural, partNamed, partDice] = thrownPart(part, faces);
    total += value;
    natural = natural === null || partNatural === null ? null : natural + partNatural;
    for (const [k, v] of partNamed) named.set(k, v);
    rolled.push(...partDice);
  }
  return { total, natural, named, dice: rolled };
}

function thrownPart(part, faces) {
  if (part instanceof Pooled) return pooled(part, faces);
  if (part instanceof Extreme) {
    const first = throwDice(part.first, faces);
    const second = throwDice(part.second, faces);
    const value = part.op === "max" ? (first.total > second.total ? first.total : second.total) : first.total < second.total ? first.total : second.total;
    return [value, partPlain(part) ? value : null, new Map([...first.named, ...second.named]), [...first.dice, ...second.dice]];
  }
  const inner = throwDice(part.dice, faces);
  const value = part.value(inner.total);
  return [value, partPlain(part) ? value : null, inner.named, inner.dice];
}

function dieText(group) {
  const one = new Group(1n, group.sides, { fate: group.fate, explode: group.explode, reroll: group.reroll, name: group.name });
  return one.text().replace(/\b1d/g, "d");
}

function groupDie(group, faces, die) {
  const [low, count] = group.fate ? [-1n, 3n] : [1n, group.sides];
  const shown = [faces.face(low, count, die)];
  const rerolled = group.reroll !== null && group.reroll[0] <= shown[0] && shown[0] <= group.reroll[1];
  if (rerolled) shown.push(faces.face(low, count, die));
  let value = shown[shown.length - 1];
  let explosions = 0n;
  if (group.explode) {
    let last = value;
    while (last === group.sides && (group.explode === UNBOUNDED || explosions < group.explode)) {
      last = faces.face(1n, group.sides, die);
      shown.push(last);
      value += last;
      explosions += 1n;
    }
  }
  return new DieRoll(die, shown, rerolled, explosions, value, true, group.name);
}

function pooled(pool, faces) {
  let dice = [];
  const sides = []; // pairs: 0 the first side, 1 the other
  const sizes = [];
  const side = pool.side ?? 0;
  pool.groups.forEach((group, index) => {
    const die = dieText(group);
    for (let i = 0n; i < group.count; i++) {
      dice.push(groupDie(group, faces, die));
      sides.push(index < side ? 0 : 1);
      sizes.push(group.sides);
    }
  });
  const named = new Map(dice.filter((d) => d.name !== null).map((d) => [d.name, d.natural]));
  const values = dice.map((d) => d.value);
  let kept = dice.map(() => true);
  let value;
  if (pool.reading === "sum") {
    value = values.reduce((a, b) => a + b, 0n);
  } else if ((pool.reading === "highest" || pool.reading === "lowest") && pool.ignoring === null) {
    const order = values.map((_, i) => i);
    order.sort((i, j) => (pool.reading === "highest" ? cmp(values[j], values[i]) : cmp(values[i], values[j]))); // stable
    const chosen = new Set(order.slice(0, Number(pool.kept)));
    kept = values.map((_, i) => chosen.has(i));
    value = [...chosen].reduce((a, i) => a + values[i], 0n);
  } else if (pool.reading === "highest" || pool.reading === "lowest" || pool.reading === "left") {
    [value, kept] = passing(pool, values, sizes);
  } else if (pool.reading === "count") {
    const [low, high] = pool.within;
    kept = values.map((v) => (low === null || v >= low) && (high === null || v <= high));
    value = BigInt(kept.filter(Boolean).length);
  } else if (pool.reading === "cancel") {
    [value, kept] = cancelled(pool, dice);
  } else if (pool.reading === "matches") {
    const counts = new Map();
    for (const v of values) counts.set(v, (counts.get(v) || 0) + 1);
    const most = Math.max(...counts.values());
    const face = values.find((v) => counts.get(v) === most);
    kept = values.map((v) => v === face);
    value = BigInt(most);
  } else {
    [value, kept] = pairs(values, sides);
  }
  dice = dice.map((d, i) => d.withKept(kept[i]));
  let natural;
  if (pool.plain) natural = value;
  else if (pool.reading === "sum") natural = dice.reduce((a, d) => a + d.natural, 0n);
  else natural = null;
  return [value, natural, named, dice];
}

/** A keep that passes over some faces, or the die it leaves (throws.py _passing): the dice not
 * showing a passed face in the keep's order (among equal values the smaller die first, then the
 * first rolled), the first `kept` kept; `left` reads the size of the largest die after them
 * (`otherwise` when none is), that die (the first rolled of that size) the one kept. */
function passing(pool, values, sizes) {
  const keep = pool.reading === "left" ? pool.keep : pool.reading;
  const passed = pool.ignoring;
  const standing = values.map((_, i) => i).filter((i) => passed === null || !withinFaces(values[i], passed));
  const order = standing.sort(
    (i, j) => (keep === "highest" ? cmp(values[j], values[i]) : cmp(values[i], values[j])) || cmp(sizes[i], sizes[j]) || i - j,
  );
  const chosen = new Set(order.slice(0, Number(pool.kept)));
  if (pool.reading !== "left") {
    return [[...chosen].reduce((a, i) => a + values[i], 0n), values.map((_, i) => chosen.has(i))];
  }
  const left = order.slice(Number(pool.kept));
  if (!left.length) return [pool.otherwise ?? 0n, values.map(() => false)];
  const read = left.reduce((best, i) => (sizes[i] > sizes[best] || (sizes[i] === sizes[best] && i < best) ? i : best));
  return [sizes[read], values.map((_, i) => i === read)];
}

/** The sum, or, when the named die's first face cancels, the sum without it and the highest other
 * die (the first rolled among equals); the dice taken away are not kept (throws.py _cancelled). */
function cancelled(pool, dice) {
  const values = dice.map((d) => d.value);
  const trigger = dice.findIndex((d) => d.name === pool.trigger);
  const [low, high] = pool.within;
  const face = dice[trigger].natural;
  if ((low !== null && face < low) || (high !== null && face > high)) {
    return [values.reduce((a, b) => a + b, 0n), dice.map(() => true)];
  }
  let highest = -1;
  values.forEach((v, i) => {
    if (i !== trigger && (highest < 0 || v > values[highest])) highest = i;
  });
  const kept = dice.map((_, i) => i !== trigger && i !== highest);
  return [values.reduce((a, v, i) => (kept[i] ? a + v : a), 0n), kept];
}

function cmp(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** How many pairs the first side wins, each side sorted highest first (a tie to the other side);
 * a die is kept when it wins its pair. */
function pairs(values, sides) {
  const byValue = (i, j) => cmp(values[j], values[i]);
  const first = values.map((_, i) => i).filter((i) => sides[i] === 0).sort(byValue);
  const second = values.map((_, i) => i).filter((i) => sides[i] === 1).sort(byValue);
  const kept = values.map(() => false);
  let won = 0n;
  for (let k = 0; k < Math.min(first.length, second.length); k++) {
    if (values[first[k]] > values[second[k]]) {
      won += 1n;
      kept[first[k]] = true;
    } else {
      kept[second[k]] = true;
    }
  }
  return [won, kept];
}
