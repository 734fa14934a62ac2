// The inputs a resolver accepts (mirrors dsl/runtime/inputs.py): each value checked, or refused
// with a RuleInputError that names the input and what it takes.  A number may be given as a
// BigInt, a JS number, a Fraction or text ("7/2", "0.7").

import { HugeNumber, MAX_DIGITS, RuleInputError, asNumber, clip, closeMatch, cmp, parts, show, shown } from "./base.js";
import { Dice } from "./dice.js";

export class InputSpec {
  constructor(name, label, kind, low, high, unit, members, defaultValue, isStat, derived = null, defaultText = null) {
    Object.assign(this, { name, label, kind, low, high, unit, members, default: defaultValue, isStat, derived, defaultText });
    Object.freeze(this);
  }

  describe() {
    if (this.members.length) {
      const sep = this.kind === "levels" ? " < " : ", ";
      return `${this.kind} {${this.members.join(sep)}}`;
    }
    let text = this.kind;
    if (this.low !== null || this.high !== null) {
      const low = this.low === null ? "" : show(this.low);
      const high = this.high === null ? "" : show(this.high);
      text += ` ${low}..${high}`;
    }
    if (this.unit) text += ` ${this.unit}`;
    return text;
  }

  /** Check a value for this input; throw RuleInputError naming what is accepted. */
  coerce(value) {
    const kind = this.kind;
    if (kind === "flag") {
      if (typeof value === "boolean") return value;
      throw this.error(value, "True or False");
    }
    if (kind === "one of" || kind === "levels") {
      if (typeof value === "string" && this.members.includes(value)) return value;
      const hint = typeof value === "string" && value.length <= 100 ? closeMatch(value, this.members) : "";
      throw this.error(value, "one of " + this.members.join(", "), hint);
    }
    if (kind === "text") {
      if (typeof value === "string") return value;
      throw this.error(value, "text");
    }
    if (kind === "dice") {
      if (value instanceof Dice) return value;
      if (typeof value === "string") {
        try {
          return Dice.parse(value);
        } catch (error) {
          if (error instanceof RuleInputError) throw this.error(value, "dice such as 3d6 or 1d6+2", error.message);
          throw error;
        }
      }
      throw this.error(value, "dice such as 3d6 or 1d6+2");
    }
    let number;
    try {
      number = asNumber(value);
    } catch (error) {
      if (error instanceof HugeNumber) throw this.error(value, `a number of at most ${MAX_DIGITS} digits`);
      throw error;
    }
    if (number === null) throw this.error(value, kind === "number" ? "a number" : "a whole number");
    if (kind !== "number" && parts(number)[1] !== 1n) throw this.error(value, "a whole number");
    if ((this.low !== null && cmp(number, this.low) < 0) || (this.high !== null && cmp(number, this.high) > 0)) {
      throw this.error(value, "a number in " + this.describe());
    }
    return number;
  }

  /** Read a value from text (a command line): yes/no, names, numbers, 7/10, 0.7, 3d6. */
  parse(text) {
    if (this.kind === "flag") {
      const lowered = text.trim().toLowerCase();
      if (["yes", "true", "1", "on"].includes(lowered)) return true;
      if (["no", "false", "0", "off"].includes(lowered)) return false;
      throw this.error(text, "yes or no");
    }
    if (["one of", "levels", "text", "dice"].includes(this.kind)) return this.coerce(text);
    return this.coerce(text.trim());
  }

  error(value, wanted, detail = "") {
    const extra = detail ? ` (${clip(detail, 200)})` : "";
    return new RuleInputError(`input \`${this.name}\` must be ${wanted}, not ${shown(value)}${extra}`);
  }
}
