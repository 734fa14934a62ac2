// Sequences (mirrors dsl/runtime/sequences.py): a rule resolved round after round (`rounds`),
// carrying the chance of still going on and the exact distribution of what adds up from round
// to round; rolled, the rounds played one after another, `rollRound` stepping a round's state.

import { RuleInputError, add, bitLength, clip, closeMatch, cmp, eq, frac, isNumber, lcm, mul, parts, show, shown, sub, whole } from "./base.js";
import { Chances, Dice, MAX_COMBINATIONS } from "./dice.js";
import { resolveWith } from "./resolve.js";
import { Xoshiro128 } from "./prng.js";
import { Resolution, RolledRound, RolledSequence, RolledValue, RoundResult, SequenceResult } from "./results.js";
import { resolveRolling, rollDice, toldResults } from "./rolling.js";
import { GeneratedFaces } from "./throws.js";

const MAX_ROUNDS = 1000;
export const SEQUENCE_WORK = 300000000n;

/** `resolve(names, {rounds: N, ...})`: the situation of the first round, with its sequence over N
 * rounds (`Resolution.sequence`).  Without `rounds`, `resolveWith` alone.  `rng` (a seed or a
 * Xoshiro128) rolls the situation, `rolled` tells results rolled elsewhere (rolling.js); over
 * rounds, each round in turn (`rollRound`). */
export function resolveRounds(book, sequences, names, given, rounds, signature = false, rng = null, rolled = null) {
  const rolling = (rng !== null && rng !== undefined) || (rolled !== null && rolled !== undefined);
  if (rounds === null || rounds === undefined) {
    if (rolling) return resolveRolling(book, names, given, rng, rolled, (inputs) => resolveWith(book, names, inputs, signature));
    return resolveWith(book, names, given, signature);
  }
  const count = typeof rounds === "bigint" ? rounds : Number.isInteger(rounds) ? BigInt(rounds) : null;
  if (count === null || count < 1n || count > BigInt(MAX_ROUNDS)) {
    throw new RuleInputError(`rounds is a whole number from 1 to ${MAX_ROUNDS}, not ${shown(rounds)}`);
  }
  const chosen = typeof names === "string" ? [names] : [...names];
  const specs = chosen.filter((name) => typeof name === "string" && sequences.has(name)).map((name) => sequences.get(name));
  if (!specs.length) {
    const first = resolveWith(book, names, given, signature);
    const withSequence = [...sequences.keys()].join(", ") || "none";
    throw new RuleInputError(`${first.rules.join(", ")} says nothing changes from round to round (rules with rounds: ${withSequence})`);
  }
  if (specs.length > 1) throw new RuleInputError(`resolve one sequence at a time: ${specs.map((s) => s.rule).join(", ")} each have one`);
  const spec = specs[0];
  const entries = given instanceof Map ? new Map(given) : new Map(Object.entries(given || {}));
  const inputs = new Map(entries);
  let start = spec.start;
  let last = start + count - 1n;
  if (spec.counter !== null) {
    const counter = book.inputs.get(spec.counter);
    const raw = entries.has(spec.counter) ? entries.get(spec.counter) : null;
    const unsaid = raw === null || raw === undefined || (signature && eq(counter.coerce(raw), book.defaults.get(spec.counter)));
    start = unsaid ? spec.start : parts(counter.coerce(raw))[0];
    last = start + count - 1n;
    if (counter.high !== null && cmp(last, counter.high) > 0) {
      throw new RuleInputError(`${count} ${spec.unit}s from ${spec.counter} ${start} run to ${last}, past its highest, ${show(counter.high)}`);
    }
    inputs.set(spec.counter, start);
  }
  const counted = new Map(spec.counted.map((name) => [name, countStart(book, name, entries.has(name) ? entries.get(name) : null, signature)]));
  const first = resolveWith(book, names, inputs, signature);
  const inputsAt = (at) => roundInputs(book, spec, inputs, counted, at);
  const result = sequenceOver(spec, Number(count), (number, changed, come) => resolveWith(book, names, inputsAt([number, changed, come]), signature), start);
  if (!rolling) return new Resolution({ ...first, sequence: result });
  const told = toldByRound(spec, rolled, start, last);
  const stream = rng === null || rng === undefined ? null : rng instanceof Xoshiro128 ? rng : new GeneratedFaces(rng).rng; // one generator, rolled on from round to round
  let state = { number: start, changed: false, ended: false, totals: new Map(spec.totals.map((name) => [name, 0n])), come: 0 };
  const played = [];
  let firstRolled = first;
  while (state.number <= last && !state.ended && (stream !== null || told.has(state.number))) {
    const number = state.number;
    const roundTold = told.has(number) ? told.get(number) : new Map();
    told.delete(number);
    const roll = (roundGiven, rolls) => resolveRolling(book, names, roundGiven, stream, rolls, (rolledInputs) => resolveWith(book, names, rolledInputs, signature));
    let resolution, following, record;
    try {
      [resolution, following, record] = rollRound(spec, state, roll, inputsAt, stream, roundTold);
    } catch (error) {
      if (!(error instanceof RuleInputError)) throw error;
      throw new RuleInputError(`${spec.unit} ${number}: ${error.message}`);
    }
    if (number === start) firstRolled = resolution;
    state = following;
    played.push(record);
  }
  if (told.size) {
    const stop = state.ended ? `the sequence ended in ${spec.unit} ${state.number - 1n}` : `${spec.unit} ${state.number} is neither told nor rolled from a seed`;
    const earliest = [...told.keys()].reduce((a, b) => (b < a ? b : a));
    throw new RuleInputError(`${spec.unit} ${earliest} is told, but ${stop}`);
  }
  const roundsOut = result.rounds.map((item, index) => (index < played.length ? item.withRolled(played[index]) : item));
  const ended = state.ended ? start + BigInt(played.length) - 1n : null;
  const changedAt = played.findIndex((r) => r.ends && spec.then !== null);
  const summary = new RolledSequence(played.length, ended, changedAt >= 0 ? start + BigInt(changedAt) : null, new Map(state.totals));
  const sequence = new SequenceResult(result.rule, result.unit, result.counter, result.until, roundsOut, result.lasting, result.totals, summary);
  return new Resolution({ ...firstRolled, sequence });
}

/** One round rolled, from `state` to the next (sequences.py roll_round): its inputs from
 * `inputsAt([number, changed, come])`, the state stepped by `nextState`. */
export function rollRound(spec, state, roll, inputsAt, stream, told) {
  const roundTold = new Map(told);
  const said = new Map();
  for (const name of spec.totals) {
    if (roundTold.has(name)) {
      said.set(name, roundTold.get(name));
      roundTold.delete(name);
    }
  }
  const resolution = roll(inputsAt([state.number, state.changed, state.come]), roundTold);
  const values = new Map(spec.totals.map((name) => [name, rolledValue(resolution, name, spec, stream, said.has(name) ? said.get(name) : null, state.number)]));
  const phase = state.changed ? "changed" : "going";
  const [after, come] = nextState(spec, phase, state.come, cameUp(resolution, spec, state.number));
  const ends = after !== phase;
  const totals = new Map(spec.totals.map((name) => [name, whole(add(state.totals.get(name), values.get(name).value))]));
  const following = { number: state.number + 1n, changed: after === "changed", ended: after === "ended", totals, come };
  const rolls = resolution.rolls.filter((r) => r.rolled !== null && r.rolled !== undefined);
  const tables = resolution.tables.filter((t) => t.rolled !== null && t.rolled !== undefined);
  return [resolution, following, new RolledRound(state.changed, ends, rolls, tables, values, totals)];
}

/** The results told, by round (sequences.py _told_by_round). */
function toldByRound(spec, rolled, start, last) {
  const byRound = new Map();
  for (const [key, value] of toldResults(rolled)) {
    const colon = key.indexOf(":");
    const place = colon >= 0 ? key.slice(0, colon) : String(start);
    const name = colon >= 0 ? key.slice(colon + 1) : key;
    if (!/^[0-9]{1,30}$/.test(place) || !name) {
      throw new RuleInputError(`\`${clip(key)}\`: a result told for a ${spec.unit} is \`N:name\`, N its ${spec.counter !== null ? spec.counter : "number"}`);
    }
    const number = BigInt(place);
    if (number < start || number > last) {
      throw new RuleInputError(`\`${clip(key)}\`: ${spec.unit} ${number} is not among those resolved (${start} to ${last})`);
    }
    if (!byRound.has(number)) byRound.set(number, new Map());
    const found = byRound.get(number);
    if (found.has(name)) throw new RuleInputError(`\`${clip(name)}\` is told twice for ${spec.unit} ${number}`);
    found.set(name, value);
  }
  return byRound;
}

function rolledValue(resolution, name, spec, stream, said, number) {
  const value = resolution.derived.has(name) ? resolution.derived.get(name) : null;
  if (value === null || isNumber(value)) {
    if (said !== null) throw new RuleInputError(`\`${name}\` is told, but it is no dice here: nothing is rolled`);
    return new RolledValue(value !== null ? whole(value) : 0n, null);
  }
  if (!(value instanceof Dice)) roundValue(resolution, name, spec, number); // the error: not a number to add up
  if (said === null && stream === null) {
    throw new RuleInputError(`\`${name}\` is ${show(value)}: tell it (\`${show(number)}:${name}\`), or give a seed`);
  }
  const side = rollDice(name, value, said, stream);
  return new RolledValue(side.total, side);
}

function cameUp(resolution, spec, roundNumber) {
  const event = spec.until !== null ? spec.until : spec.follows;
  if (event === null) return false;
  const [name, outcome] = event;
  for (const roll of resolution.rolls) {
    if (roll.name === name) {
      const made = roll.rolled;
      if (made === null || made === undefined) {
        const number = show(roundNumber);
        throw new RuleInputError(`\`${name}\` decides whether the ${spec.unit}s go on: tell it (\`${number}:${name}\`), or give a seed`);
      }
      if (made.success !== null && (outcome === "success" || outcome === "failure")) return made.success === (outcome === "success");
      return made.outcomes.includes(outcome);
    }
  }
  return false;
}

/** Where a count input starts: the value the caller gave it, else 0. */
function countStart(book, name, raw, signature) {
  if (raw === null || raw === undefined) return 0n;
  const value = book.inputs.get(name).coerce(raw);
  if (signature && eq(value, book.defaults.get(name))) return 0n;
  return parts(value)[0];
}

/** The inputs of one round (sequences.py `round_inputs`): the counter at the round's number, the
 * `then` input once changed, each count input as many higher than where it started as the
 * followed outcome has come; a count past its input's highest is refused. */
export function roundInputs(book, spec, given, counted, [number, changed, come]) {
  const inputs = new Map(given);
  if (spec.counter !== null) inputs.set(spec.counter, number);
  if (changed && spec.then !== null) inputs.set(spec.then[0], spec.then[1]);
  for (const [name, begun] of counted) {
    const high = book.inputs.get(name).high;
    const value = begun + BigInt(come);
    if (high !== null && cmp(value, high) > 0) {
      throw new RuleInputError(
        `\`${name}\` reaches ${value} in ${spec.unit} ${number}, past its highest, ${show(high)}: fewer ${spec.unit}s, or a wider range for \`${name}\``,
      );
    }
    inputs.set(name, value);
  }
  return inputs;
}

/** The state after a round in [phase, come] (sequences.py `next_state`), the followed outcome come
 * in it or not. */
export function nextState(spec, phase, come, came) {
  if (!came) return [phase, come];
  const after = come + 1;
  if (phase === "going" && spec.until !== null && after >= spec.times) phase = spec.then !== null ? "changed" : "ended";
  const keeps = spec.counted.length > 0 || (phase === "going" && spec.times > 1);
  return [phase, keeps ? after : 0];
}

/** The chances of each value of a total, in one state of a sequence: whole numbers over one
 * denominator. */
class Weights {
  constructor(denominator, ways) {
    this.denominator = denominator;
    this.ways = ways; // Map: the value (a bigint, or a Fraction's text) -> [value, ways]
  }
  scaled(factor) {
    const [top, bottom] = parts(factor);
    return new Weights(this.denominator * bottom, new Map([...this.ways].map(([k, [v, w]]) => [k, [v, w * top]])));
  }
  plus(other) {
    const common = lcm(this.denominator, other.denominator);
    const mine = common / this.denominator;
    const theirs = common / other.denominator;
    const ways = new Map([...this.ways].map(([k, [v, w]]) => [k, [v, w * mine]]));
    for (const [k, [v, w]] of other.ways) {
      const found = ways.get(k);
      ways.set(k, [v, (found ? found[1] : 0n) + w * theirs]);
    }
    return new Weights(common, ways);
  }
  mean() {
    let sum = 0n;
    for (const [v, w] of this.ways.values()) sum = add(sum, mul(v, w));
    return mul(sum, frac(1n, this.denominator));
  }
  cost(terms) {
    return BigInt(this.ways.size) * BigInt(terms) * (100n + BigInt(Math.floor(bitLength(this.denominator) / 64)));
  }
}

/** The work one round's resolution costs (sequences.py RESOLUTION_WORK). */
const RESOLUTION_WORK = 10000n;

function stateKey(phase, come) {
  return `${phase} ${come}`;
}

function sequenceOver(spec, rounds, resolveRound, start) {
  const fresh = new Map(spec.totals.map((name) => [name, new Weights(1n, new Map([[0n, [0n, 1n]]]))]));
  let states = new Map([[stateKey("going", 0), ["going", 0, 1n, fresh]]]);
  const results = [];
  let work = 0n;
  for (let index = 0; index < rounds; index++) {
    const number = start + BigInt(index);
    const following = new Map();
    const rolled = new Map();
    let going = 0n;
    for (const [phase, , mass] of states.values()) if (phase === "going") going = add(going, mass);
    let ends = 0n;
    for (const [phase, come, mass, totals] of states.values()) {
      if (phase === "ended" || mass === 0n) {
        merge(following, phase, come, mass, totals);
        continue;
      }
      work += RESOLUTION_WORK;
      if (work > SEQUENCE_WORK) throw new RuleInputError(tooMany(spec, rounds, index, states.size));
      const resolution = resolveRound(number, phase === "changed", come);
      const added = new Map();
      for (const name of spec.totals) {
        const value = roundValue(resolution, name, spec, number);
        work += totals.get(name).cost(value.table.length);
        if (work > SEQUENCE_WORK) throw new RuleInputError(tooLong(spec, rounds, index, totals.get(name), name));
        added.set(name, convolved(totals.get(name), value));
      }
      for (const roll of resolution.rolls) {
        if (!rolled.has(roll.name)) rolled.set(roll.name, new Map());
        const outcomes = rolled.get(roll.name);
        for (const [outcome, p] of roll.outcomes) outcomes.set(outcome, add(outcomes.has(outcome) ? outcomes.get(outcome) : 0n, mul(mass, p)));
      }
      const came = followedChance(resolution, spec);
      const hit = nextState(spec, phase, come, true);
      const miss = nextState(spec, phase, come, false);
      if (hit[0] !== phase) ends = add(ends, mul(mass, came));
      if (cmp(came, 1n) !== 0) {
        const rest = sub(1n, came);
        merge(following, miss[0], miss[1], mul(mass, rest), new Map([...added].map(([k, w]) => [k, w.scaled(rest)])));
      }
      if (came !== 0n) {
        merge(following, hit[0], hit[1], mul(mass, came), new Map([...added].map(([k, w]) => [k, w.scaled(came)])));
      }
    }
    states = following;
    const means = new Map();
    for (const name of spec.totals) {
      let sum = 0n;
      for (const [, , , totals] of states.values()) sum = add(sum, totals.get(name).mean());
      means.set(name, sum);
    }
    results.push(new RoundResult(number, going, ends, rolled, means));
  }
  const final = new Map();
  for (const name of spec.totals) {
    let combined = null;
    for (const [, , , totals] of states.values()) combined = combined === null ? totals.get(name) : combined.plus(totals.get(name));
    const table = [...combined.ways.values()]
      .filter(([, w]) => w !== 0n)
      .map(([v, w]) => [v, frac(w, combined.denominator)])
      .sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
    final.set(name, new Chances(table));
  }
  let lasting = 0n;
  for (const [phase, , mass] of states.values()) if (phase === "going") lasting = add(lasting, mass);
  const until = spec.until !== null ? `${spec.until[0]} ${spec.until[1]}${spec.times > 1 ? ` ${spec.times} times` : ""}` : null;
  return new SequenceResult(spec.rule, spec.unit, spec.counter, until, results, lasting, final);
}

function tooMany(spec, rounds, done, states) {
  const held = `${spec.unit} ${done + 1} is resolved at ${states.toLocaleString("en-US")} counts of \`${spec.counted[0]}\``;
  if (!done) return `one ${spec.unit} of ${spec.rule} is more than a resolver works out exactly: ${held}`;
  const plural = done > 1 ? "s" : "";
  return `${rounds} ${spec.unit}s of ${spec.rule} are more than a resolver works out exactly: ${held}, and each ${spec.unit} adds one; ask for at most ${done} ${spec.unit}${plural}`;
}

function tooLong(spec, rounds, done, weights, name) {
  const digits = weights.denominator.toString().length;
  const grown = `\`${name}\` already has ${weights.ways.size.toLocaleString("en-US")} values whose chances take ${digits.toLocaleString("en-US")} digits`;
  if (!done) return `one ${spec.unit} of ${spec.rule} is more than a resolver works out exactly: ${grown}`;
  const plural = done > 1 ? "s" : "";
  return (
    `${rounds} ${spec.unit}s of ${spec.rule} are more than a resolver works out exactly: after ${done}` +
    ` ${spec.unit}${plural}, ${grown}, and each ${spec.unit} adds to both; ask for at most ${done} ${spec.unit}${plural}`
  );
}

function roundValue(resolution, name, spec, number) {
  if (!resolution.derived.has(name)) return new Chances([[0n, 1n]]);
  const value = resolution.derived.get(name);
  if (value instanceof Dice || isNumber(value)) return Chances.of(value);
  throw new RuleInputError(`\`${name}\` is ${show(value)} in ${spec.unit} ${number}: not a number to add up`);
}

function followedChance(resolution, spec) {
  const event = spec.until !== null ? spec.until : spec.follows;
  if (event === null) return 0n;
  const [name, outcome] = event;
  for (const roll of resolution.rolls) {
    if (roll.name === name) {
      if (roll.probability !== null && (outcome === "success" || outcome === "failure")) {
        return outcome === "success" ? roll.probability : sub(1n, roll.probability);
      }
      return roll.outcomes.has(outcome) ? roll.outcomes.get(outcome) : 0n;
    }
  }
  return 0n;
}

function convolved(weights, value) {
  if (weights.ways.size * value.table.length > MAX_COMBINATIONS) {
    throw new RuleInputError("a total over the rounds has too many values to work out exactly: fewer rounds");
  }
  const theirs = lcm(...value.table.map(([, p]) => parts(p)[1]));
  const ways = value.table.map(([b, p]) => {
    const [n, d] = parts(p);
    return [b, n * (theirs / d)];
  });
  const combined = new Map();
  for (const [a, wa] of weights.ways.values()) {
    for (const [b, wb] of ways) {
      const key = whole(add(a, b));
      const name = typeof key === "bigint" ? key : show(key); // one entry per number
      const found = combined.get(name);
      combined.set(name, [key, (found ? found[1] : 0n) + wa * wb]);
    }
  }
  return new Weights(weights.denominator * theirs, combined);
}

function merge(states, phase, come, mass, totals) {
  const key = stateKey(phase, come);
  const found = states.get(key);
  if (found === undefined) {
    states.set(key, [phase, come, mass, totals]);
    return;
  }
  states.set(key, [phase, come, add(found[2], mass), new Map([...totals].map(([name, weights]) => [name, found[3].get(name).plus(weights)]))]);
}

/** A rule's or table's own function: its inputs by name (each one it reads; `roll` for a table
 * rolled with dice), those not given at their defaults; one at its default counts as not given. */
export function resolveRule(book, sequences, name, inputs, rounds, rng = null, told = null) {
  const reads = book.rules.get(name).reads;
  const rolled = book.tables.has(name) && book.tables.get(name).pool !== null;
  const given = new Map(reads.map((key) => [key, book.derivedInputs.has(key) ? null : book.defaults.get(key)]));
  const entries = inputs instanceof Map ? [...inputs] : Object.entries(inputs || {});
  for (const [key, value] of entries) {
    if (!reads.includes(key) && !(rolled && key === "roll")) {
      const names = [...reads, ...(rolled ? ["roll"] : [])].sort();
      const hint = key.length <= 100 ? closeMatch(key, names) : "";
      const said = names.length ? `it reads ${names.join(", ")}` : "it reads no input";
      throw new RuleInputError(`${name}() has no input \`${clip(key)}\`; ` + (hint || said));
    }
    given.set(key, value);
  }
  return resolveRounds(book, sequences, [name], given, rounds, true, rng, told);
}
