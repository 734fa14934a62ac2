// The resolver runtime every JavaScript module rulecraft generates imports, one copy per output
// folder (mirrors dsl/runtime/__init__.py; its modules mirror dsl/runtime/'s one to one, so a
// change to one is made to the other the same way).  So every book's `Dice` is the same class and
// one `catch (e) { if (e instanceof RuleInputError) ... }` serves every book's.
//
// A module states the API it was built for: `require(API, ...)` at its top refuses, with both
// versions named, a runtime that does not offer it.

export { IMPASSABLE, NOT_APPLICABLE, Fraction, RuleInputError, Special, frac, jsonText, show } from "./base.js";
export { CHAIN_DEPTH } from "./chains.js";
export { Chances, Clamped, Dice, Distribution, Scaled } from "./dice.js";
export { InputSpec } from "./inputs.js";
export { Xoshiro128 } from "./prng.js";
export {
  Chain,
  ChainOutcome,
  ChainRoll,
  ChainStep,
  Consequence,
  DiceRoll,
  DieRoll,
  FlowStep,
  Modifier,
  Note,
  Resolution,
  Restriction,
  Roll,
  RollMade,
  RolledRound,
  RolledSequence,
  RolledValue,
  RoundResult,
  RuleInfo,
  RulebookInfo,
  SequenceResult,
  TableResult,
  TableRow,
  TraceEntry,
} from "./results.js";

export { VERSION } from "./version.js";
import { VERSION } from "./version.js";
export const API = 3;

export class RuntimeMismatch extends Error {}

export function requireApi(api, module, builtBy) {
  if (api !== API) {
    const newer = api > API ? "a newer" : "an older";
    throw new RuntimeMismatch(
      `${module} was built by rulecraft ${builtBy} for runtime API ${api}, but the rulecraft runtime` +
        ` here is ${VERSION} (API ${API}): rebuild the module with \`rulecraft build --target js\`, or use the` +
        ` runtime of ${newer} rulecraft (${builtBy})`,
    );
  }
}
