// Chains: the whole procedure from one roll to the end, with the exact chance of each way it goes
// (mirrors dsl/runtime/chains.py, where the rules are stated).  A roll of a chain (a "state") is
// [table, modifier, drawn for a roll twice]; states are compared by `stateKey`.

import { RuleInputError, add, cmp, div, isNumber, mul, show, sub, whole } from "./base.js";
import { poolText } from "./dice.js";
import { Chain, ChainOutcome, ChainStep, FlowStep } from "./results.js";
import { integer } from "./settle.js";
import { rowFor } from "./specs.js";
import { sendsOn } from "./tables.js";

export const CHAIN_DEPTH = 4;
export const CHAIN_PATHS = 20000n;
export const CHAIN_FLOW = 2000;
export const CHAIN_ROLLS = 200;

const STEP = /^(?:roll on (?<table>\w+)(?: (?<on>[+-]\d+))?|roll twice on this table|roll again(?: (?<again>[+-]\d+))?)$/;

const stateKey = (state) => `${state[0]}|${state[1]}|${state[2]}`;

/** A row's step as the compiler writes it: [table rolled, its modifier, roll twice]. */
export function parseStep(step, table) {
  const found = STEP.exec(step);
  if (found === null) throw new Error(`not a step: ${step}`);
  if (found.groups.table !== undefined) return [found.groups.table, BigInt(found.groups.on || 0), false];
  if (step.startsWith("roll twice")) return [table, 0n, true];
  return [table, BigInt(found.groups.again || 0), false];
}

/** The rows a roll of a table (with a modifier; for a roll twice, without its roll-twice rows)
 * can give, each with its exact chance; kept for the situation. */
export function chainDraws(scope, state) {
  if (scope.draws === undefined) scope.draws = new Map();
  const key = stateKey(state);
  const known = scope.draws.get(key);
  if (known !== undefined) return known;
  const book = scope.book;
  const [name, offset, forTwice] = state;
  const table = book.tables.get(name);
  const roll = poolText(table.pool, true) + (offset ? ` ${offset > 0n ? "+" : "-"} ${offset < 0n ? -offset : offset}` : "");
  const ways = new Map();
  for (let [total, chance] of book.pool(table.pool).chances()) {
    total += offset;
    const folded = table.above !== null && table.becomes !== null && total > table.above;
    if (folded) total = table.becomes;
    const row = rowFor(table, [total]);
    if (row === null) continue;
    const index = table.rows.indexOf(row);
    const wayKey = `${index}|${folded}`;
    const previous = ways.get(wayKey);
    ways.set(wayKey, [index, folded, previous ? add(previous[2], chance) : chance]);
  }
  const draws = [];
  for (const [index, folded, chance] of ways.values()) {
    const row = table.rows[index];
    const steps = [...row.steps, ...(folded && table.overflow_step ? [table.overflow_step] : [])];
    const parsed = steps.map((step) => parseStep(step, name));
    if (forTwice && parsed.some(([, , twice]) => twice)) continue;
    const children = [];
    for (const [target, modifier, twice] of parsed) {
      if (twice) children.push([target, offset, true], [target, offset, true]);
      else children.push([target, modifier, false]);
    }
    const values = row.cells.map((cell) => whole(typeof cell === "function" ? cell(scope) : cell));
    const applies = !parsed.length || parsed.some(([target, , twice]) => target === name && !twice);
    const text = values.filter((v) => v !== "").map((v) => show(v)).join(", ");
    const rowKey = folded ? `above ${table.above} as ${row.key}` : row.key;
    const numbers = new Map();
    table.columns.forEach((column, i) => {
      if (applies && isNumber(values[i])) numbers.set(column, values[i]);
    });
    draws.push({ probability: chance, step: new ChainStep(name, roll, rowKey, text, steps, applies, 0), children, values: numbers });
  }
  let kept = 0n;
  for (const d of draws) kept = add(kept, d.probability);
  const result = draws.map((d) => ({ ...d, probability: div(d.probability, kept) }));
  scope.draws.set(key, result);
  return result;
}

/** Every roll a chain can come to, and whether one can come back to itself (a cycle). */
export function chainStates(scope, starts) {
  const order = [];
  const seen = new Set();
  const stack = [...starts];
  while (stack.length) {
    const state = stack.pop();
    if (seen.has(stateKey(state))) continue;
    seen.add(stateKey(state));
    order.push(state);
    for (const d of chainDraws(scope, state)) stack.push(...d.children);
  }
  const edges = new Map(order.map((s) => [stateKey(s), uniqueStates(chainDraws(scope, s).flatMap((d) => d.children))]));
  const done = new Set();
  for (const root of order) {
    if (done.has(stateKey(root))) continue;
    const active = new Set([stateKey(root)]);
    const path = [[root, edges.get(stateKey(root)), 0]];
    while (path.length) {
      const top = path[path.length - 1];
      const [state, children, at] = top;
      if (at >= children.length) {
        path.pop();
        active.delete(stateKey(state));
        done.add(stateKey(state));
        continue;
      }
      top[2] += 1;
      const child = children[at];
      if (active.has(stateKey(child))) return [order, true];
      if (!done.has(stateKey(child))) {
        active.add(stateKey(child));
        path.push([child, edges.get(stateKey(child)), 0]);
      }
    }
  }
  return [order, false];
}

function uniqueStates(states) {
  const found = new Map();
  for (const s of states) if (!found.has(stateKey(s))) found.set(stateKey(s), s);
  return [...found.values()];
}

function solve(matrix, rhs) {
  const size = matrix.length;
  let rows = matrix.map((row, i) => [...row, rhs[i]]);
  for (let column = 0; column < size; column++) {
    let pivot = -1;
    for (let r = column; r < size; r++) {
      if (rows[r][column] !== 0n) {
        pivot = r;
        break;
      }
    }
    if (pivot < 0) return null;
    [rows[column], rows[pivot]] = [rows[pivot], rows[column]];
    const lead = rows[column][column];
    rows[column] = rows[column].map((x) => div(x, lead));
    for (let r = 0; r < size; r++) {
      const factor = rows[r][column];
      if (r !== column && factor !== 0n) rows[r] = rows[r].map((a, i) => sub(a, mul(factor, rows[column][i])));
    }
  }
  return rows.map((row) => row[size]);
}

function expected(scope, order, starts) {
  const index = new Map(order.map((s, i) => [stateKey(s), i]));
  const size = order.length;
  const matrix = [];
  for (let i = 0; i < size; i++) matrix.push(Array.from({ length: size }, (_, j) => (i === j ? 1n : 0n)));
  const rhs = new Array(size).fill(0n);
  for (const state of starts) rhs[index.get(stateKey(state))] = add(rhs[index.get(stateKey(state))], 1n);
  for (const state of order) {
    const i = index.get(stateKey(state));
    for (const draw of chainDraws(scope, state)) {
      for (const child of draw.children) {
        const c = index.get(stateKey(child));
        matrix[c][i] = sub(matrix[c][i], draw.probability);
      }
    }
  }
  const made = solve(matrix, rhs);
  if (made === null || made.some((y) => cmp(y, 0n) < 0)) return [null, new Map(), new Map()];
  const visits = new Map();
  const means = new Map();
  for (const state of order) {
    const times = made[index.get(stateKey(state))];
    for (const draw of chainDraws(scope, state)) {
      const label = `${draw.step.table} ${draw.step.key}`;
      visits.set(label, add(visits.has(label) ? visits.get(label) : 0n, mul(times, draw.probability)));
      for (const [column, value] of draw.values) {
        means.set(column, add(means.has(column) ? means.get(column) : 0n, mul(mul(times, draw.probability), value)));
      }
    }
  }
  let rolls = 0n;
  for (const y of made) rolls = add(rolls, y);
  return [rolls, new Map([...visits].filter(([, v]) => v !== 0n)), means];
}

/** How many paths listing a chain to `limit` rolls in a row follows (CHAIN_PATHS). */
export function listingSize(childrenOf, starts, depth, limit) {
  const known = new Map();
  const count = (state, at) => {
    if (limit !== null && at >= limit) return [0n, 1n];
    const key = `${stateKey(state)}@${limit !== null ? at : 0}`;
    let found = known.get(key);
    if (found === undefined) {
      let ways = 0n;
      let paths = 1n;
      for (const children of childrenOf(state)) {
        let combos = 1n;
        for (const child of children) {
          const [listed, followed] = count(child, at + 1);
          combos *= listed;
          paths += followed;
        }
        ways += combos;
        paths += combos;
      }
      found = [ways, paths];
      known.set(key, found);
    }
    return found;
  };
  let combos = 1n;
  let paths = 1n;
  for (const start of starts) {
    const [listed, followed] = count(start, depth);
    combos *= listed;
    paths += followed;
  }
  return paths + combos;
}

export function listedDepth(childrenOf, starts, depth, cyclic, stated) {
  let high;
  if (!cyclic) {
    if (listingSize(childrenOf, starts, depth, null) <= CHAIN_PATHS) return null;
    high = depth + longest(childrenOf, starts);
  } else {
    high = stated || CHAIN_DEPTH;
  }
  let low = depth + 1;
  if (high <= low || listingSize(childrenOf, starts, depth, high) <= CHAIN_PATHS) return Math.max(high, low);
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (listingSize(childrenOf, starts, depth, middle) <= CHAIN_PATHS) low = middle;
    else high = middle;
  }
  return low;
}

function longest(childrenOf, starts) {
  const known = new Map();
  const walk = (state) => {
    let found = known.get(stateKey(state));
    if (found === undefined) {
      let deepest = 0;
      for (const children of childrenOf(state)) for (const child of children) deepest = Math.max(deepest, walk(child));
      found = 1 + deepest;
      known.set(stateKey(state), found);
    }
    return found;
  };
  return starts.reduce((best, start) => Math.max(best, walk(start)), 0);
}

const pathKey = (path) => path.map((s) => s.id).join("\n");

function ways(scope, state, depth, limit) {
  if (limit !== null && depth >= limit) return [[], 1n];
  const out = new Map();
  let beyond = 0n;
  for (const draw of chainDraws(scope, state)) {
    let step = draw.step;
    if (depth) step = new ChainStep(step.table, step.roll, step.key, step.text, step.then, step.applies, depth);
    beyond = add(beyond, branch(scope, draw.probability, step, draw.values, draw.children, limit, out));
  }
  return [[...out.values()], beyond];
}

function compareWays(a, b) {
  const left = a[0];
  const right = b[0];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    for (const field of ["table", "key"]) {
      if (left[i][field] !== right[i][field]) return left[i][field] < right[i][field] ? -1 : 1;
    }
  }
  return left.length - right.length;
}

function branch(scope, chance, step, values, children, limit, out) {
  const branches = children.map((child) => ways(scope, child, step.depth + 1, limit));
  let listed = 1n;
  for (const [, rest] of branches) listed = mul(listed, sub(1n, rest));
  let combos = [[[], chance]];
  for (const [found] of branches) {
    const next = [];
    for (const [done, p] of combos) for (const way of found) next.push([[...done, way], mul(p, way[1])]);
    combos = next;
  }
  const twice = children.length === 2 && stateKey(children[0]) === stateKey(children[1]);
  for (let [found, p] of combos) {
    if (twice) found = [...found].sort(compareWays);
    const path = [step, ...found.flatMap((way) => way[0])];
    const totals = new Map(values);
    for (const way of found) {
      for (const [column, value] of way[2]) totals.set(column, add(totals.has(column) ? totals.get(column) : 0n, value));
    }
    const key = pathKey(path);
    const previous = out.get(key);
    out.set(key, [path, previous ? add(p, previous[1]) : p, totals]);
  }
  return mul(chance, sub(1n, listed));
}

/** The chain from a roll on a table (or from a row already selected, `first`), reached with `chance`. */
export function chainFrom(scope, rule, start, chance, state, first = null) {
  const found = chainFromOne(scope, rule, start, state, first);
  if (cmp(chance, 1n) === 0) return found;
  const outcomes = found.outcomes.map((o) => new ChainOutcome(o.path, mul(o.probability, chance), o.totals));
  const flow = found.flow.map(
    (s) => new FlowStep(s.depth, s.table, s.roll, s.key, s.text, s.chance, mul(s.reach, chance), s.then, s.repeats, s.twice, s.cut),
  );
  return new Chain(found.rule, found.start, chance, outcomes, found.complete, found.depth, mul(found.beyond, chance), found.rolls, found.visits, found.means, flow);
}

function chainFromOne(scope, rule, start, state, first) {
  let lead;
  let children;
  let order;
  let cyclic;
  let limit;
  let found;
  let beyondAll;
  if (first !== null) {
    const starts = first.steps.map((step) => parseStep(step, state[0]));
    children = [];
    for (const [t, m, w] of starts) {
      if (w) children.push([t, state[1], true], [t, state[1], true]);
      else children.push([t, m, false]);
    }
    const applies = starts.some(([t, , w]) => t === state[0] && !w);
    const text = [...first.values.values()].filter((v) => v !== "").map((v) => show(v)).join(", ");
    const head = new ChainStep(state[0], "given", first.key, text, first.steps, applies, 0);
    const numbers = new Map([...first.values].filter(([, v]) => applies && isNumber(v)));
    [order, cyclic] = chainStates(scope, children);
    limit = listingLimit(scope, children, 1, order, cyclic);
    const out = new Map();
    beyondAll = branch(scope, 1n, head, numbers, children, limit, out);
    found = [...out.values()];
    lead = [new FlowStep(0, head.table, head.roll, head.key, head.text, 1n, 1n, head.then, false)];
  } else {
    lead = [];
    children = [state];
    [order, cyclic] = chainStates(scope, children);
    limit = listingLimit(scope, children, 0, order, cyclic);
    [found, beyondAll] = ways(scope, state, 0, limit);
  }
  const [rolls, visits, means] = expected(scope, order, children);
  const outcomes = [...found]
    .sort((a, b) => cmp(b[1], a[1]))
    .map(([path, p, totals]) => new ChainOutcome(path, p, totals));
  const flow = boundedFlow(scope, children, lead);
  return new Chain(rule, start, 1n, outcomes, limit === null, limit, beyondAll, rolls, visits, means, flow);
}

function listingLimit(scope, starts, depth, order, cyclic) {
  if (order.length > CHAIN_ROLLS) {
    throw new RuleInputError(
      `the chain from table ${starts[0][0]} comes to ${order.length.toLocaleString("en-US")} different rolls (tables and` +
        ` modifiers); a resolver works out chains of at most ${CHAIN_ROLLS}`,
    );
  }
  const stated = cyclic ? statedDepth(scope, order) : null;
  return listedDepth((s) => chainDraws(scope, s).map((d) => d.children), starts, depth, cyclic, stated);
}

function statedDepth(scope, order) {
  let found = null;
  for (const s of order) {
    const d = scope.book.tables.get(s[0]).depth;
    if (d !== null && (found === null || d > found)) found = d;
  }
  return found;
}

function boundedFlow(scope, states, lead) {
  const top = lead.length;
  let deepest = null;
  if (flowLines(scope, states, [], top, null, CHAIN_FLOW) > CHAIN_FLOW) {
    let low = top;
    let high = top + CHAIN_ROLLS;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (flowLines(scope, states, [], top, middle, CHAIN_FLOW) <= CHAIN_FLOW) low = middle;
      else high = middle;
    }
    deepest = low;
  }
  return flow(scope, states, top, 1n, [], [...lead], deepest);
}

function onRoute(route, state, child) {
  const key = stateKey(child);
  return key === stateKey(state) || route.some((s) => stateKey(s) === key);
}

function flowLines(scope, states, route, depth, deepest, budget) {
  let lines = 0;
  const shown = new Set();
  for (const state of states) {
    if (shown.has(stateKey(state))) continue;
    shown.add(stateKey(state));
    for (const draw of chainDraws(scope, state)) {
      lines += 1;
      if (lines > budget) return lines;
      const repeats = draw.children.some((child) => onRoute(route, state, child));
      if (!repeats && draw.children.length && (deepest === null || depth < deepest)) {
        lines += flowLines(scope, draw.children, [...route, state], depth + 1, deepest, budget - lines);
        if (lines > budget) return lines;
      }
    }
  }
  return lines;
}

function flow(scope, states, depth, reach, route, out, deepest = null) {
  const shown = new Set();
  for (const state of states) {
    if (shown.has(stateKey(state))) continue;
    shown.add(stateKey(state));
    for (const draw of chainDraws(scope, state)) {
      const step = draw.step;
      const here = mul(reach, draw.probability);
      const repeats = draw.children.some((child) => onRoute(route, state, child));
      const cut = !repeats && draw.children.length > 0 && deepest !== null && depth >= deepest;
      out.push(new FlowStep(depth, step.table, step.roll, step.key, step.text, draw.probability, here, step.then, repeats, state[2], cut));
      if (!repeats && !cut) flow(scope, draw.children, depth + 1, here, [...route, state], out, deepest);
    }
  }
  return out;
}

/** The chains a situation starts: from each rolled table with a step on some row, each table row
 * looked up that sends on, and each roll's outcome that does. */
export function chainsOf(scope, rolls, tables) {
  const book = scope.book;
  const found = [];
  for (const result of tables) {
    const spec = book.tables.get(result.name);
    if (!sendsOn(spec)) continue;
    const offset = spec.modifier ? BigInt(spec.sign) * integer(scope.v.get(spec.modifier)) : 0n;
    if (result.selected !== null) {
      if (result.selected.steps.length) {
        const start = `table ${spec.name}, row ${result.selected.key}`;
        found.push(chainFrom(scope, spec.name, start, 1n, [spec.name, offset, false], result.selected));
      }
    } else if (spec.pool !== null) {
      const start = `table ${spec.name} (${result.dice})`;
      found.push(chainFrom(scope, spec.name, start, 1n, [spec.name, offset, false]));
    }
  }
  for (const roll of rolls) {
    for (const [outcome, step] of roll.spec.steps) {
      const chance = roll.outcomes.has(outcome) ? roll.outcomes.get(outcome) : 0n;
      const [target, modifier] = parseStep(step, "");
      const start = `roll ${roll.spec.name}: ${outcome}`;
      found.push(chainFrom(scope, roll.spec.rule, start, chance, [target, modifier, false]));
    }
  }
  return found;
}
