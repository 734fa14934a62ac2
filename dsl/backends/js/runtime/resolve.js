// The entry point of a generated module: `resolveWith` (rules and tables resolved together)
// (mirrors dsl/runtime/resolve.py).
//
// A module writes each rule out as one function per value it settles (a stat, a derived value;
// its rolls, its texts), each deciding that rule's steps of the value and handing them on as
// candidates.  A situation settles its values in the book's order (`Book.settle`), each from the
// candidates of every rule in the order the rules are named; the helpers here count them (a part
// two rules compose counts once), trace them and settle them.  A rule alone is the situation of
// one rule: Python's straight-line function for it (`_resolve_RULE`) gives the same Resolution.

import { HugeNumber, RuleInputError, asNumber, clip, closeMatch, eq, parts, shown, whole } from "./base.js";
import { Book, Scope, Settled } from "./book.js";
import { chainsOf } from "./chains.js";
import { poolText } from "./dice.js";
import { Note, Resolution, Restriction, TraceEntry } from "./results.js";
import { mergeRolls, rollOf } from "./rolls.js";
import { settleHeld } from "./settle.js";
import { TraceSpec } from "./specs.js";
import { sendsOn, tableResult } from "./tables.js";

export { Book };

/** A trace spec with the clauses of the `as` statements around its step first. */
export function within(trace, texts, names) {
  return TraceSpec(trace.rule, trace.source, trace.item, [...texts, ...trace.clauses], [...names, ...trace.names]);
}

export function restrictionOf(spec) {
  return new Restriction(spec.rule, spec.source, spec.text);
}

export function noteOf(spec) {
  return new Note(spec.rule, spec.source, spec.text, spec.quote, spec.kind);
}

/** The candidates of one value, each key once: the first whose clauses hold counts, where it is
 * met; a key none of whose steps holds appears once, not applied, where it is first met. */
export function counted(candidates) {
  const where = new Map();
  const out = [];
  for (const candidate of candidates) {
    const key = candidate[1];
    const holds = candidate[2] < 0;
    const earlier = where.get(key);
    if (earlier !== undefined) {
      const previous = out[earlier];
      if (previous !== null && previous[1]) continue;
      if (!holds) continue;
      out[earlier] = null;
    }
    where.set(key, out.length);
    out.push([candidate, holds]);
  }
  return out.filter((x) => x !== null);
}

function settleCounted(scope, name, candidates, modifiers) {
  const { trace, v, e } = scope;
  const held = [];
  const where = [];
  for (const [candidate, holds] of counted(candidates)) {
    trace.push(new TraceEntry(candidate[3], candidate[2], v, e));
    if (holds) {
      const amount = candidate[5];
      held.push([candidate[4], typeof amount === "function" ? amount() : amount]);
      where.push(candidate[0]);
    }
  }
  return settleHeld(scope.book, name, v.get(name), held, modifiers, where);
}

function deriveCounted(scope, name, candidates, derived) {
  const { trace, v, e } = scope;
  let chosen = null;
  let first = null;
  for (const [candidate, holds] of counted(candidates)) {
    trace.push(new TraceEntry(candidate[3], candidate[2], v, e));
    first = first || candidate;
    if (holds && chosen === null) chosen = candidate;
  }
  if (chosen === null) {
    const compute = first[5];
    e.wait(name, () => whole(compute()));
    return;
  }
  const value = whole(chosen[5]());
  e.set(name, value);
  derived.set(name, value);
}

function rollsCounted(scope, candidates) {
  const { trace, v, e } = scope;
  const rolls = [];
  for (const [candidate, holds] of counted(candidates)) {
    trace.push(new TraceEntry(candidate[3], candidate[2], v, e));
    if (holds) rolls.push(rollOf(scope, candidate[5]));
  }
  return rolls;
}

function textsCounted(scope, candidates, restrictions, notes) {
  const { trace, v, e } = scope;
  for (const [candidate, holds] of counted(candidates)) {
    if (candidate[3] !== null) trace.push(new TraceEntry(candidate[3], candidate[2], v, e));
    if (holds) {
      const said = candidate[5];
      if (said instanceof Restriction) restrictions.push(said);
      else notes.push(said);
    }
  }
}

/** How a set of rules resolved together settles, found once per set of rules. */
function scheduleOf(book, rules) {
  const key = rules.join("\n");
  let found = book.schedules.get(key);
  if (found === undefined) {
    found = schedule(book, rules);
    book.schedules.set(key, found);
  }
  return found;
}

function schedule(book, rules) {
  const codes = [];
  rules.forEach((name, at) => {
    if (book.code.has(name)) codes.push([at, book.code.get(name)]);
  });
  const wanted = new Set();
  for (const name of rules) {
    for (const key of book.rules.get(name).reads) {
      const spec = book.inputs.get(key);
      if (spec.isStat) wanted.add("stat " + key);
      if (spec.derived !== null) wanted.add("base " + key);
    }
  }
  for (const [, code] of codes) for (const node of code.nodes.keys()) if (node.startsWith("derive ")) wanted.add(node);
  const nodes = [];
  for (const node of book.settle) {
    if (!wanted.has(node)) continue;
    const space = node.indexOf(" ");
    const kind = node.slice(0, space);
    const name = node.slice(space + 1);
    const deciding = codes.filter(([, code]) => code.nodes.has(node)).map(([at, code]) => [at, code.nodes.get(node)]);
    if (kind === "base") nodes.push(["base", name, book.inputs.get(name).derived]);
    else if (kind === "stat" && !deciding.length) nodes.push(["unmodified", name, null]);
    else nodes.push([kind, name, deciding]);
  }
  const watches = new Map();
  for (const [at, code] of codes) {
    for (const [name, steps, note] of code.watches) {
      const places = steps.map(([step, clause]) => [`${at},${step}`, clause]);
      if (watches.has(name)) watches.get(name)[0].push(...places);
      else watches.set(name, [places, note]);
    }
  }
  const gated = [...watches].filter(([, [places]]) => places.every(([, clause]) => clause > 0)).map(([name, [places, note]]) => [name, places, note]);
  const reads = new Set(rules.flatMap((name) => book.rules.get(name).reads));
  const rank = (k) => (book.order.has(k) ? book.order.get(k) : book.order.size);
  const tables = rules.filter((name) => book.tables.has(name));
  return {
    nodes,
    rolls: codes.filter(([, code]) => code.rolls !== null).map(([at, code]) => [at, code.rolls]),
    texts: codes.filter(([, code]) => code.texts !== null).map(([at, code]) => [at, code.texts]),
    watches: gated,
    reads,
    order: [...reads].sort((a, b) => rank(a) - rank(b)),
    tables,
    chains: codes.some(([, code]) => code.chains) || tables.some((t) => sendsOn(book.tables.get(t))),
  };
}

function candidatesOf(scope, deciding, decided) {
  const candidates = [];
  for (const [at, fn] of deciding) fn(scope, at, candidates);
  for (const candidate of candidates) decided.set(String(candidate[0]), candidate[2]);
  return candidates;
}

/** The situation of several rules and tables: each value settled from the candidates of every
 * rule, in the book's order; then the rolls, the texts, the tables and the chains. */
export function resolveTogether(book, rules, v, given) {
  const plan = scheduleOf(book, rules);
  const e = new Settled();
  const trace = [];
  const scope = new Scope(book, v, e, trace);
  const modifiers = [];
  const derived = new Map();
  const decided = new Map();
  for (const [kind, name, deciding] of plan.nodes) {
    if (kind === "unmodified") {
      e.set(name, whole(v.get(name)));
    } else if (kind === "base") {
      if (v.get(name) === null || v.get(name) === undefined) v.set(name, whole(deciding(scope)));
    } else {
      const candidates = candidatesOf(scope, deciding, decided);
      if (kind === "stat") e.set(name, settleCounted(scope, name, candidates, modifiers));
      else deriveCounted(scope, name, candidates, derived);
    }
  }
  const rolls = plan.rolls.length ? rollsCounted(scope, candidatesOf(scope, plan.rolls, decided)) : [];
  const restrictions = [];
  const notes = [];
  if (plan.texts.length) textsCounted(scope, candidatesOf(scope, plan.texts, decided), restrictions, notes);
  for (const [name, places, note] of plan.watches) {
    if (given.has(name) && !places.some(([step, clause]) => decided.get(step) < 0 || decided.get(step) >= clause)) notes.push(note);
  }
  for (const name of plan.tables) notes.push(...book.tables.get(name).notes);
  const rank = (k) => (book.order.has(k) ? book.order.get(k) : book.order.size);
  const keys = [...given].every((k) => plan.reads.has(k)) ? plan.order : [...new Set([...plan.reads, ...given])].sort((a, b) => rank(a) - rank(b));
  const inputs = new Map(keys.map((key) => [key, v.get(key)]));
  const stats = new Map();
  for (const key of inputs.keys()) {
    if (book.inputs.has(key) && book.inputs.get(key).isStat) stats.set(key, e.has(key) ? e.get(key) : v.get(key));
  }
  modifiers.sort((a, b) => comparePlaces(a[0], b[0]));
  const tables = plan.tables.map((name) => tableResult(scope, book.tables.get(name)));
  return new Resolution({
    rulebook: book.info.name,
    rules,
    inputs,
    stats,
    derived,
    modifiers: modifiers.map((x) => x[1]),
    rolls: rolls.length > 1 ? mergeRolls(scope, rolls) : rolls,
    restrictions,
    notes,
    tables,
    trace,
    chains: plan.chains ? chainsOf(scope, rolls, tables) : [],
  });
}

/** A candidate's place: [the rule's place, the step's index]. */
function comparePlaces(a, b) {
  return a[0] - b[0] || a[1] - b[1];
}

/** Resolve a situation in which the named rules and tables apply together. */
export function resolveWith(book, names, given, signature = false) {
  if (typeof names === "string") names = [names];
  else if (!Array.isArray(names)) throw new RuleInputError(`name the rules as text or a list of texts, not ${shown(names)}`);
  const chosen = [];
  for (const name of names) {
    if (typeof name !== "string") throw new RuleInputError(`rule names are text, not ${shown(name)}`);
    if (!book.rules.has(name)) {
      const hint = name.length <= 100 ? closeMatch(name, [...book.rules.keys()]) : "";
      throw new RuleInputError(`no rule or table \`${clip(name)}\` in ${book.info.name}` + (hint ? `; ${hint}` : ""));
    }
    if (!chosen.includes(name)) chosen.push(name);
  }
  if (!chosen.length) throw new RuleInputError("name at least one rule or table to resolve");
  const values = new Map(book.defaults);
  const plan = scheduleOf(book, chosen);
  const supplied = new Set();
  const entries = given instanceof Map ? [...given] : Object.entries(given || {});
  for (const [key, raw] of entries) {
    if (raw === undefined) continue;
    const spec = book.inputs.get(key);
    if (spec !== undefined && raw === null && spec.derived !== null) continue;
    if (spec === undefined) {
      const rolled = chosen.filter((x) => book.tables.has(x) && book.tables.get(x).pool !== null);
      if (key === "roll" && rolled.length) {
        values.set("roll", rollInput(raw, book, chosen));
        supplied.add(key);
        continue;
      }
      if (key === "roll" && chosen.some((name) => book.tables.has(name))) {
        throw new RuleInputError(`\`roll\` selects a row of a table rolled with dice; ${chosen.join(", ")} is looked up by its inputs`);
      }
      const hint = key.length <= 100 ? closeMatch(key, [...book.inputs.keys()]) : "";
      throw new RuleInputError(`no input \`${clip(key)}\` in ${book.info.name}` + (hint ? `; ${hint}` : ""));
    }
    if (!plan.reads.has(key)) {
      const readers = [...book.rules.values()].filter((info) => info.reads.includes(key)).map((info) => info.name);
      const where = readers.length ? `it is read by ${readers.slice(0, 6).join(", ")}${readers.length > 6 ? " ..." : ""}` : "no rule reads it";
      throw new RuleInputError(`\`${key}\` has no effect on ${chosen.join(", ")}: ${where}`);
    }
    const value = spec.coerce(raw);
    values.set(key, value);
    if (!signature || !eq(value, book.defaults.get(key))) supplied.add(key);
  }
  return resolveTogether(book, chosen, values, supplied);
}

function rollInput(raw, book, chosen) {
  const rolled = chosen.filter((name) => book.tables.has(name) && book.tables.get(name).pool !== null).map((name) => book.tables.get(name));
  let number;
  try {
    number = asNumber(raw);
  } catch (error) {
    if (!(error instanceof HugeNumber)) throw error;
    number = null;
  }
  if (number === null || parts(number)[1] !== 1n) throw new RuleInputError(`input \`roll\` must be a whole number, not ${shown(raw)}`);
  for (const table of rolled) {
    const dist = book.pool(table.pool);
    if (!(dist.low <= number && number <= dist.high)) {
      throw new RuleInputError(`input \`roll\` must be a result of ${poolText(table.pool)} (${dist.low}..${dist.high}), not ${shown(raw)}`);
    }
  }
  return number;
}
