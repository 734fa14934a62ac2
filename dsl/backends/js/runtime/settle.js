// Stacking and the order of modifiers (mirrors dsl/runtime/settle.py): a stat's value from its
// base and the modifiers that hold, and what became of each (applied, suppressed, overridden,
// capped).

import { Fraction, abs, add, cmp, div, isNumber, max, min, mul, parts, roundValue, sub, whole } from "./base.js";
import { Dice } from "./dice.js";
import { Modifier } from "./results.js";
import { KIND_OPS, MODIFIER_KINDS, inRuleOrder } from "./specs.js";

/** int(x): a number truncated towards zero, as Python's int() of a Fraction. */
export function integer(value) {
  const [n, d] = parts(value);
  return n / d;
}

/** A stat changed only by additions that all count: `held`, whether any addition held. */
export function addedTotal(value, kind, held) {
  if (value instanceof Fraction && held && kind !== "number") return roundValue(value, "down");
  return value;
}

/** A stat's value from the modifiers that hold, in the order of their steps; each becomes a
 * Modifier in `out` (with its step from `where`, when given). */
export function settleHeld(book, name, base, held, out, where = null) {
  if (!held.length) return whole(base);
  const [value, statuses] = settledStat(book, name, base, held);
  held.forEach(([spec, amount], i) => {
    const modifier = new Modifier(spec, whole(amount), statuses[i][0], statuses[i][1]);
    out.push(where === null ? modifier : [where[i], modifier]);
  });
  return whole(value);
}

export function settledStat(book, name, base, held) {
  const added = addedOnly(book, name, base, held);
  if (added !== null) return [added, held.map(() => ["applied", null])];
  return settleStat(book, name, base, held);
}

function addedOnly(book, name, base, held) {
  const spec = book.inputs.get(name);
  const kind = spec.kind;
  if (!["int", "number", "percent"].includes(kind)) return null;
  for (const [modifier] of held) {
    if (modifier.op !== "add" || (modifier.group !== null && modifier.stacking !== "cumulative")) return null;
  }
  const order = book.orders.get(name);
  if (order !== undefined && !order.kinds.includes("additions")) return null;
  let value = base;
  for (const [, amount] of held) value = add(value, amount);
  if (value instanceof Fraction && kind !== "number") return roundValue(value, "down");
  return value;
}

export function settleStat(book, name, base, held) {
  const spec = book.inputs.get(name);
  const grouped = groups(book, spec, base, held);
  const counted = held.filter((_, i) => grouped[i][0] === "applied");
  const [value, statuses] = valueOf(book, spec, base, counted);
  let at = 0;
  return [value, grouped.map(([status, why]) => (status === "applied" ? statuses[at++] : [status, why]))];
}

function valueOf(book, spec, base, held) {
  const kind = spec.kind;
  if (!held.length) return [base, []];
  if (["int", "number", "percent"].includes(kind)) return numeric(book, base, held, kind, book.orders.get(spec.name));
  if (kind === "dice") return diceValue(base, held, book.orders.get(spec.name));
  if (kind === "levels") return levelValue(spec, base, held);
  return setOnly(base, held);
}

function groups(book, spec, base, held) {
  const statuses = held.map(() => ["applied", null]);
  const found = new Map();
  held.forEach(([modifier], i) => {
    if (modifier.group !== null && modifier.stacking !== "cumulative") {
      if (!found.has(modifier.group)) found.set(modifier.group, []);
      found.get(modifier.group).push(i);
    }
  });
  for (const [group, members] of found) {
    const stacking = held[members[0]][0].stacking;
    const start = measure(spec, base);
    const alone = new Map(members.map((i) => [i, measure(spec, valueOf(book, spec, base, [held[i]])[0])]));
    const weight = (i) => (stacking === "highest" || stacking === "lowest" ? alone.get(i) : abs(sub(alone.get(i), start)));
    let best = members[0];
    for (const i of members.slice(1)) {
      const difference = cmp(weight(i), weight(best));
      if (stacking === "lowest" ? difference < 0 : difference > 0) best = i; // on a tie, the first
    }
    const winner = held[best][0];
    for (const i of members) {
      if (i !== best) statuses[i] = ["suppressed", `only the ${stacking} of group \`${group}\` applies: ${winner.rule}: ${winner.text}`];
    }
  }
  return statuses;
}

function numeric(book, base, held, kind, order) {
  const statuses = held.map(() => ["applied", null]);
  const ops = new Set(held.map(([spec]) => spec.op));
  let value = base;
  const grade = ops.has("grade") ? gradeOf(book, held, statuses) : null;
  for (const step of order !== undefined ? order.kinds : MODIFIER_KINDS.number) {
    if (step === "scaling" && (ops.has("mul") || ops.has("div"))) {
      for (const i of inRuleOrder(order !== undefined ? order.rules : [], held.map(([spec]) => spec.rule))) {
        const [spec, amount] = held[i];
        if (spec.op === "mul") value = mul(value, amount);
        else if (spec.op === "div") value = div(value, amount);
        else continue;
        if (spec.rounding) value = roundValue(value, spec.rounding);
      }
    } else if (step === "additions" && ops.has("add")) {
      for (const [spec, amount] of held) if (spec.op === "add") value = add(value, amount);
    } else if (step === "grade" && grade !== null && grade.op !== "set") {
      value = grade.op === "mul" ? mul(value, grade.value) : div(value, grade.value);
      if (grade.rounding) value = roundValue(value, grade.rounding);
    }
  }
  if (grade !== null && grade.op === "set") value = grade.value;
  if (ops.has("set")) {
    let last = -1;
    held.forEach(([spec], i) => {
      if (spec.op === "set") last = i;
    });
    value = held[last][1];
    const winner = held[last][0];
    held.forEach(([spec], i) => {
      if (i !== last && ["add", "mul", "div", "grade", "set"].includes(spec.op) && statuses[i][0] === "applied") {
        statuses[i] = ["overridden", `${winner.rule}: ${winner.text}`];
      }
    });
  }
  if (ops.has("max")) value = min(value, min(...held.filter(([spec]) => spec.op === "max").map(([, a]) => a)));
  if (ops.has("min")) value = max(value, max(...held.filter(([spec]) => spec.op === "min").map(([, a]) => a)));
  if (value instanceof Fraction && kind !== "number") value = roundValue(value, "down");
  return [value, statuses];
}

function gradeOf(book, held, statuses) {
  const grades = new Map(book.grades.map((g) => [g.name, g]));
  const chosen = [];
  held.forEach(([spec, a], i) => {
    if (spec.op === "grade") chosen.push([i, grades.get(String(a))]);
  });
  if (!chosen.length) return null;
  const absolute = chosen.filter(([, g]) => g.step === null);
  if (absolute.length) {
    for (const [i] of chosen) {
      if (i !== absolute[0][0]) statuses[i] = ["overridden", `${held[absolute[0][0]][0].rule}: ${absolute[0][1].name}`];
    }
    return absolute[0][1];
  }
  const net = chosen.reduce((sum, [, g]) => sum + (g.step || 0n), 0n);
  if (net === 0n) {
    for (const [i] of chosen) statuses[i] = ["suppressed", "grades cancel one another"];
    return null;
  }
  const steps = book.grades.filter((g) => g.step).sort((a, b) => (a.step < b.step ? -1 : a.step > b.step ? 1 : 0));
  const sameSide = steps.filter((g) => g.step * net > 0n);
  let best = sameSide[0];
  const distance = (g) => (g.step - net < 0n ? net - g.step : g.step - net);
  for (const g of sameSide.slice(1)) if (distance(g) < distance(best)) best = g;
  return best;
}

function measure(spec, value) {
  if (value instanceof Dice) {
    let sum = 0n;
    for (const [total, chance] of value.totals()) sum = add(sum, mul(total, chance));
    return sum;
  }
  if (spec.kind === "levels") return BigInt(spec.members.indexOf(String(value)));
  if (isNumber(value)) return value;
  return 0n;
}

function diceValue(base, held, order) {
  const statuses = held.map(() => ["applied", null]);
  const sets = [];
  held.forEach(([spec], i) => {
    if (spec.op === "set") sets.push(i);
  });
  let value = sets.length ? held[sets[sets.length - 1]][1] : base;
  const lastSet = sets.length ? held[sets[sets.length - 1]][0] : null;
  for (const i of sets.slice(0, -1)) statuses[i] = ["overridden", `${lastSet.rule}: ${lastSet.text}`];
  const indexes = inRuleOrder(order !== undefined ? order.rules : [], held.map(([spec]) => spec.rule));
  for (const step of order !== undefined ? order.kinds : MODIFIER_KINDS.dice) {
    for (const i of indexes) {
      const [spec, amount] = held[i];
      if (!KIND_OPS[step].has(spec.op)) continue;
      if (spec.op === "dice") {
        const wanted = value.firstCount() + integer(amount);
        value = value.withDice(integer(amount));
        if (value.firstCount() !== wanted && !value.constant) statuses[i] = ["capped", "a pool keeps at least one die"];
      } else if (spec.op === "step") {
        value = value.stepped(integer(amount));
      } else if (spec.op === "add") {
        value = value.plus(amount instanceof Dice ? amount : integer(amount));
      } else {
        const factor = spec.op === "mul" ? amount : div(1n, amount);
        value = value.scaled(factor, spec.rounding);
      }
    }
  }
  return [value, statuses];
}

function levelValue(spec, base, held) {
  const statuses = held.map(() => ["applied", null]);
  const members = spec.members;
  const sets = [];
  held.forEach(([modifier], i) => {
    if (modifier.op === "set") sets.push(i);
  });
  const value = sets.length ? String(held[sets[sets.length - 1]][1]) : String(base);
  const lastSet = sets.length ? held[sets[sets.length - 1]][0] : null;
  for (const i of sets.slice(0, -1)) statuses[i] = ["overridden", `${lastSet.rule}: ${lastSet.text}`];
  let index = members.indexOf(value);
  for (const [modifier, a] of held) if (modifier.op === "shift") index += Number(integer(a));
  index = Math.min(Math.max(index, 0), members.length - 1);
  const caps = held.filter(([m]) => m.op === "max").map(([, a]) => members.indexOf(String(a)));
  const floors = held.filter(([m]) => m.op === "min").map(([, a]) => members.indexOf(String(a)));
  if (caps.length) index = Math.min(index, ...caps);
  if (floors.length) index = Math.max(index, ...floors);
  return [members[index], statuses];
}

function setOnly(base, held) {
  const statuses = held.map(() => ["applied", null]);
  const last = held[held.length - 1][0];
  for (let i = 0; i < held.length - 1; i++) statuses[i] = ["overridden", `${last.rule}: ${last.text}`];
  return [held[held.length - 1][1], statuses];
}

/** A stat's value with one more modifier on top: what an outcome's consequence makes of it. */
export function applyOne(spec, current, op, amount, rounding) {
  if (spec.kind === "dice") {
    if (op === "set") return amount;
    if (op === "dice") return current.withDice(integer(amount));
    if (op === "step") return current.stepped(integer(amount));
    if (op === "add") return current.plus(amount instanceof Dice ? amount : integer(amount));
    const factor = op === "mul" ? amount : div(1n, amount);
    return current.scaled(factor, rounding);
  }
  if (spec.kind === "levels") {
    const members = spec.members;
    const index = members.indexOf(String(current));
    if (op === "set") return String(amount);
    if (op === "shift") return members[Math.min(Math.max(index + Number(integer(amount)), 0), members.length - 1)];
    const other = members.indexOf(String(amount));
    return members[op === "min" ? Math.max(index, other) : Math.min(index, other)];
  }
  if (!["int", "number", "percent"].includes(spec.kind) || op === "set") return amount;
  let value = current;
  if (op === "add") value = add(value, amount);
  else if (op === "mul" || op === "div") {
    value = op === "mul" ? mul(value, amount) : div(value, amount);
    if (rounding) value = roundValue(value, rounding);
  } else if (op === "min") value = max(value, amount);
  else if (op === "max") value = min(value, amount);
  if (value instanceof Fraction && spec.kind !== "number") return roundValue(value, "down");
  return value;
}

