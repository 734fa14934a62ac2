// Types of the rulecraft JavaScript runtime: the values a resolution returns and what an app
// passes in (mirrors dsl/runtime/results.py and dsl/runtime/dice.py).  Numbers are exact: a
// whole number is a `bigint`, any other a `Fraction`.

/** An exact number that is not whole (numerator and denominator reduced, denominator > 1). */
export declare class Fraction {
  readonly n: bigint;
  readonly d: bigint;
  toString(): string;
}

/** A number as a resolution reports it. */
export type Num = bigint | Fraction;
/** A whole number as an app may pass it: a bigint, a safe integer, or text ("12"). */
export type Whole = bigint | number | string;
/** Any number as an app may pass it: also a Fraction or text ("7/2", "0.5"). */
export type Exact = Whole | Fraction;

/** A table cell that is not a number: X (impassable) or N/A (not applicable). */
export declare class Special {
  readonly text: string;
}
export declare const IMPASSABLE: Special;
export declare const NOT_APPLICABLE: Special;

/** A value of an input, stat, derived value or table cell. */
export type Value = Num | boolean | string | Dice | Special;

/** The one error a resolver throws for bad input (an unknown rule or input, a value out of range). */
export declare class RuleInputError extends Error {}

export declare function frac(numerator: bigint, denominator?: bigint): Num;
/** A value as text: whole numbers plainly, exact decimals as decimals, other fractions as a/b. */
export declare function show(value: Value | null): string;
/** JSON text of data holding bigints (written as JSON integers of any size). */
export declare function jsonText(data: unknown, indent?: number): string;

export declare class Dice {
  constructor(terms?: ReadonlyArray<readonly [bigint | number, bigint | number]>, bonus?: bigint | number);
  readonly terms: ReadonlyArray<readonly [bigint, bigint]>;
  readonly bonus: bigint;
  static parse(text: string): Dice;
  static pool(count: bigint | number, sides: bigint | number): Dice;
  readonly constant: boolean;
  plus(other: Dice | bigint | number): Dice;
  totals(): Map<bigint, Num>;
  chances(): Chances;
  toString(): string;
}

export declare class Chances {
  readonly table: ReadonlyArray<readonly [Num, Num]>;
  static of(value: Dice | Chances | Num): Chances;
  readonly low: Num;
  readonly high: Num;
  readonly mean: Num;
  chanceThat(op: "<" | "<=" | ">" | ">=" | "==" | "!=", bound: Num): Num;
  toDict(): ChancesJson;
}

export declare class InputSpec {
  readonly name: string;
  readonly label: string | null;
  readonly kind: "int" | "number" | "percent" | "flag" | "dice" | "text" | "one of" | "levels";
  readonly low: Num | null;
  readonly high: Num | null;
  readonly unit: string | null;
  readonly members: readonly string[];
  readonly default: Value | null;
  readonly isStat: boolean;
  describe(): string;
  coerce(value: unknown): Value;
  parse(text: string): Value;
}

export declare class RulebookInfo {
  readonly name: string;
  readonly title: string;
  readonly source: string | null;
  readonly version: string | null;
  readonly notes: readonly Note[];
}

export declare class RuleInfo {
  readonly name: string;
  readonly kind: string;
  readonly title: string;
  readonly source: string | null;
  readonly reads: readonly string[];
}

export type Status = "applied" | "suppressed" | "overridden" | "capped";

export declare class Modifier {
  readonly amount: Value;
  readonly status: Status;
  readonly reason: string | null;
  readonly rule: string;
  readonly target: string;
  readonly applied: boolean;
  toDict(): ModifierJson;
}

export declare class Consequence {
  readonly outcome: string;
  readonly text: string;
  readonly probability: Num;
  readonly stat: string | null;
  readonly value: Value | null;
  toDict(): ConsequenceJson;
}

export declare class Roll {
  readonly name: string;
  readonly rule: string;
  readonly dice: string;
  readonly bonus: Num;
  readonly comparison: string | null;
  readonly target: Num | null;
  /** Of success (of winning); null for a roll without a target. */
  readonly probability: Num | null;
  readonly automatic: "success" | "failure" | null;
  readonly outcomes: ReadonlyMap<string, Num>;
  readonly margins: ReadonlyMap<bigint, Num>;
  readonly totals: ReadonlyMap<Num, Num>;
  readonly successes: ReadonlyMap<bigint, Num>;
  readonly needed: bigint | null;
  readonly consequences: readonly Consequence[];
  readonly merged: readonly Roll[];
  readonly asked_by: readonly string[];
  /** What the roll came to, when the situation was rolled (`rng`) or told (`rolled`). */
  readonly rolled: RollMade | null;
  toDict(): RollJson;
}

/** rulecraft's one generator (xoshiro128** seeded by SplitMix64): the same seed, the same dice as
 * in Python. */
export declare class Xoshiro128 {
  constructor(seed: bigint | number);
  getstate(): number[];
  next32(): number;
  below(n: bigint | number): number;
}

/** A seed, or a Xoshiro128 kept to roll one situation after another from one stream. */
export type Rng = bigint | number | Xoshiro128;

/** Results rolled elsewhere, by roll name (`rule.name` for one of two): faces or a total. */
export type Rolled = Record<string, Whole | readonly (bigint | number)[]> | ReadonlyMap<string, Whole | readonly (bigint | number)[]>;

export declare class DieRoll {
  readonly die: string;
  readonly faces: readonly bigint[];
  readonly natural: bigint;
  readonly rerolled: boolean;
  readonly explosions: bigint;
  readonly value: bigint;
  readonly kept: boolean;
  readonly name: string | null;
  toDict(): DieRollJson;
}

export declare class DiceRoll {
  readonly dice: string;
  readonly bonus: Num;
  readonly rolled: readonly DieRoll[];
  readonly dice_total: bigint;
  readonly total: Num;
  toDict(): DiceRollJson;
}

export declare class RollMade {
  readonly source: "rng" | "faces" | "total" | "automatic" | "table";
  readonly sides: readonly DiceRoll[];
  readonly total: Num | null;
  readonly margin: bigint | null;
  readonly outcome: string;
  readonly outcomes: readonly string[];
  readonly success: boolean | null;
  readonly consequences: readonly Consequence[];
  readonly effects: readonly string[];
  /** The rolls its outcome sent on to (`on fumble: ... then roll light_damage`), depth first, in the order rolled. */
  readonly chained: readonly ChainRoll[];
  toDict(): RollMadeJson;
}

export declare class Restriction {
  readonly rule: string;
  readonly source: string | null;
  readonly what: string;
  readonly text: string;
  toDict(): RestrictionJson;
}

export declare class Note {
  readonly rule: string;
  readonly source: string | null;
  readonly text: string;
  readonly quote: string | null;
  readonly kind: "note" | "aside" | "erratum" | "input";
  toDict(): NoteJson;
}

export declare class TraceEntry {
  readonly applied: boolean;
  readonly clause: string | null;
  readonly reads: ReadonlyMap<string, Value | null>;
  readonly because: string;
  toDict(): TraceJson;
}

export declare class TableRow {
  readonly key: string;
  readonly values: ReadonlyMap<string, Value>;
  readonly steps: readonly string[];
  readonly probability: Num | null;
}

export declare class TableResult {
  readonly name: string;
  readonly title: string;
  readonly source: string | null;
  readonly dice: string | null;
  readonly keys: ReadonlyMap<string, Value>;
  readonly result: bigint | null;
  readonly selected: TableRow | null;
  readonly rows: readonly TableRow[];
  /** Its dice, when the situation was rolled (`rng`) or its roll told (`rolled`). */
  readonly rolled: DiceRoll | null;
  /** The rolls its row sent on to, depth first, in the order rolled (empty when not rolled). */
  readonly chained: readonly ChainRoll[];
}

/** One roll of a chain a rolled table's row, or a rolled roll's outcome, sent on to. */
export declare class ChainRoll {
  readonly table: string;
  /** One deeper than the roll that sent on to it (the table's own roll is depth 0). */
  readonly depth: number;
  /** The dice, with the step's `+N` as their bonus. */
  readonly rolled: DiceRoll;
  /** The total that selected the row (after `above N: as M`). */
  readonly result: bigint;
  readonly row: TableRow;
  /** False for a row that only sends on. */
  readonly applies: boolean;
  /** A roll-twice row met by one of the two rolls of a roll twice: rolled again, it gives nothing. */
  readonly again: boolean;
}

export declare class Chain {
  readonly rule: string;
  readonly start: string;
  readonly probability: Num;
  readonly complete: boolean;
  /** The chance that a row ("table key") is visited at least once, over the ways listed. */
  chance(row: string): Num;
}

export declare class SequenceResult {
  readonly rule: string;
  readonly unit: string;
  readonly counter: string | null;
  readonly until: string | null;
  readonly rounds: readonly RoundResult[];
  readonly lasting: Num;
  readonly totals: ReadonlyMap<string, Chances>;
  /** The rounds as rolled (`rng`, `rolled`), when they were. */
  readonly rolled: RolledSequence | null;
}

/** One round of a sequence: its counter's value and exact chances; `rolled` when it was rolled. */
export declare class RoundResult {
  readonly number: bigint;
  readonly going: Num;
  readonly ends: Num;
  readonly rolled: RolledRound | null;
}

/** One round as rolled: whether `then` had set its input before it, whether the `until` outcome
 * came up in it, its rolls and tables rolled, what each total took and each total so far. */
export declare class RolledRound {
  readonly changed: boolean;
  readonly ends: boolean;
  readonly rolls: readonly Roll[];
  readonly tables: readonly TableResult[];
  readonly values: ReadonlyMap<string, RolledValue>;
  readonly totals: ReadonlyMap<string, Num>;
}

/** What a total took from one rolled round: the value, and its dice when it is dice. */
export declare class RolledValue {
  readonly value: Num;
  readonly rolled: DiceRoll | null;
}

/** A sequence as rolled: the rounds rolled, the round it ended in, the round whose outcome
 * changed the input of `then`, and each total rolled. */
export declare class RolledSequence {
  readonly rounds: number;
  readonly ended: bigint | null;
  readonly changed: bigint | null;
  readonly totals: ReadonlyMap<string, Num>;
}

/** Everything a situation resolves to; `toDict()` is what `rulecraft resolve --json` prints. */
export declare class Resolution {
  readonly rulebook: string;
  readonly rules: readonly string[];
  readonly inputs: ReadonlyMap<string, Value | null>;
  readonly stats: ReadonlyMap<string, Value>;
  readonly derived: ReadonlyMap<string, Value>;
  readonly modifiers: readonly Modifier[];
  readonly rolls: readonly Roll[];
  readonly restrictions: readonly Restriction[];
  readonly notes: readonly Note[];
  readonly tables: readonly TableResult[];
  readonly trace: readonly TraceEntry[];
  readonly chains: readonly Chain[];
  readonly sequence: SequenceResult | null;
  /** The roll called `name` (of `rule`, when several rules call for a roll of that name). */
  roll(name: string, rule?: string | null): Roll;
  /** What the roll (or the rolled table) called `name` came to, when rolled. */
  rolled(name: string, rule?: string | null): RollMade;
  toDict(): ResolutionJson;
}

// ---------------------------------------------------------------- the JSON of a resolution
// Written with `jsonText`: whole numbers are JSON integers (bigints here, of any size).

export interface FractionJson {
  fraction: string;
  float: number;
}
export type NumberJson = bigint | FractionJson;
export interface DiceJson {
  dice: string;
  min: bigint | null;
  max: bigint | null;
  mean: NumberJson | null;
  distribution: Array<{ total: bigint; probability: FractionJson }> | null;
  at_least: Array<{ total: bigint; probability: FractionJson }> | null;
}
export type ValueJson = NumberJson | boolean | string | null | DiceJson | { special: string };
export interface ChancesJson {
  min: NumberJson;
  max: NumberJson;
  mean: NumberJson;
  distribution: Array<{ total: NumberJson; probability: FractionJson }>;
  at_least: Array<{ total: NumberJson; probability: FractionJson }>;
}
export interface ModifierJson {
  target: string;
  operation: string;
  amount: ValueJson;
  text: string;
  label: string | null;
  rule: string;
  source: string | null;
  group: string | null;
  status: Status;
  applied: boolean;
  reason: string | null;
}
export interface ConsequenceJson {
  outcome: string;
  text: string;
  probability: FractionJson;
  stat: string | null;
  value: ValueJson;
}
export interface RollJson {
  name: string;
  label: string | null;
  rule: string;
  source: string | null;
  kind: string;
  dice: string;
  bonus: NumberJson;
  comparison: string | null;
  target: NumberJson | null;
  needed: bigint | null;
  probability: FractionJson | null;
  automatic: "success" | "failure" | null;
  outcomes: Record<string, FractionJson>;
  effects: Record<string, string>;
  margins: Array<{ margin: bigint; probability: FractionJson }>;
  totals: Array<{ total: NumberJson; probability: FractionJson }>;
  successes: Array<{ successes: bigint; probability: FractionJson }>;
  consequences: ConsequenceJson[];
  notes: string[];
  asked_by: string[];
  merged: Array<{ rule: string; source: string | null; effects: Record<string, string>; consequences: ConsequenceJson[]; notes: string[] }>;
  rolled?: RollMadeJson;
}
export interface DieRollJson {
  die: string;
  faces: bigint[];
  natural: bigint;
  rerolled: boolean;
  explosions: bigint;
  value: bigint;
  kept: boolean;
  name: string | null;
}
export interface DiceRollJson {
  dice: string;
  bonus: NumberJson;
  rolled: DieRollJson[];
  dice_total: bigint;
  total: NumberJson;
}
export interface RollMadeJson {
  source: "rng" | "faces" | "total" | "automatic";
  sides: DiceRollJson[];
  total: NumberJson | null;
  margin: bigint | null;
  outcome: string;
  outcomes: string[];
  success: boolean | null;
  consequences: ConsequenceJson[];
  effects: string[];
  chained: unknown[];
}
export interface RestrictionJson {
  what: string;
  text: string;
  rule: string;
  source: string | null;
}
export interface NoteJson {
  kind: "note" | "aside" | "erratum" | "input";
  text: string;
  quote: string | null;
  rule: string;
  source: string | null;
}
export interface TraceJson {
  rule: string;
  source: string | null;
  item: string;
  applied: boolean;
  clause: string | null;
  reads: Record<string, ValueJson>;
  because: string;
}
export interface ResolutionJson {
  rulebook: string;
  rules: string[];
  inputs: Record<string, ValueJson>;
  stats: Record<string, { start: ValueJson; final: ValueJson }>;
  derived: Record<string, ValueJson>;
  modifiers: ModifierJson[];
  rolls: RollJson[];
  restrictions: RestrictionJson[];
  notes: NoteJson[];
  tables: unknown[];
  trace: TraceJson[];
  chains: unknown[];
  sequence?: unknown;
}

export declare const VERSION: string;
export declare const API: number;
export declare class RuntimeMismatch extends Error {}
export declare function requireApi(api: number, module: string, builtBy: string): void;
