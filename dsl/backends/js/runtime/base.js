// The lowest layer of the runtime (mirrors dsl/runtime/base.py): the one error a resolver raises
// for bad input, exact numbers, the table cells that are not numbers (X, N/A), and how numbers are
// shown and written as JSON.
//
// Numbers are exact, as in Python: a whole number is a BigInt, any other a Fraction (BigInt
// numerator and denominator, reduced, the denominator above 1).  Every helper here returns a
// whole result as a BigInt, so there is one form for each number.

export class RuleInputError extends Error {
  constructor(message) {
    super(message);
    this.name = "RuleInputError";
  }
}

export class HugeNumber extends Error {}

export class Special {
  constructor(text) {
    this.text = text;
    Object.freeze(this);
  }
  toString() {
    return this.text;
  }
}

export const IMPASSABLE = new Special("X");
export const NOT_APPLICABLE = new Special("N/A");

function gcd(a, b) {
  if (a < 0n) a = -a;
  if (b < 0n) b = -b;
  while (b) [a, b] = [b, a % b];
  return a;
}

export function lcm(...values) {
  let found = 1n;
  for (const value of values) found = (found / gcd(found, value)) * value;
  return found;
}

export class Fraction {
  constructor(numerator, denominator) {
    this.n = numerator;
    this.d = denominator;
    Object.freeze(this);
  }
  toString() {
    return `${this.n}/${this.d}`;
  }
}

/** The exact number numerator/denominator: a BigInt when whole, else a reduced Fraction. */
export function frac(numerator, denominator = 1n) {
  if (denominator === 0n) throw new RangeError("division by zero");
  if (denominator < 0n) {
    numerator = -numerator;
    denominator = -denominator;
  }
  const common = gcd(numerator, denominator);
  if (common > 1n) {
    numerator /= common;
    denominator /= common;
  }
  return denominator === 1n ? numerator : new Fraction(numerator, denominator);
}

export function isNumber(value) {
  return typeof value === "bigint" || value instanceof Fraction;
}

/** [numerator, denominator] of a number (a JS number must be a safe integer). */
export function parts(value) {
  if (typeof value === "bigint") return [value, 1n];
  if (value instanceof Fraction) return [value.n, value.d];
  if (typeof value === "number" && Number.isInteger(value)) return [BigInt(value), 1n];
  if (typeof value === "boolean") return [value ? 1n : 0n, 1n];
  throw new TypeError(`not a number: ${String(value)}`);
}

export function add(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") return a + b;
  const [an, ad] = parts(a);
  const [bn, bd] = parts(b);
  return frac(an * bd + bn * ad, ad * bd);
}

export function sub(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") return a - b;
  const [an, ad] = parts(a);
  const [bn, bd] = parts(b);
  return frac(an * bd - bn * ad, ad * bd);
}

export function mul(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") return a * b;
  const [an, ad] = parts(a);
  const [bn, bd] = parts(b);
  return frac(an * bn, ad * bd);
}

export function div(a, b) {
  const [an, ad] = parts(a);
  const [bn, bd] = parts(b);
  if (bn === 0n) throw new RuleInputError("division by zero");
  return frac(an * bd, ad * bn);
}

export function neg(a) {
  if (typeof a === "bigint") return -a;
  const [n, d] = parts(a);
  return frac(-n, d);
}

/** a ** b for a whole exponent b (as Python's Fraction ** int). */
export function pow(a, b) {
  const [bn, bd] = parts(b);
  if (bd !== 1n) throw new RuleInputError("a power is raised to a whole number");
  const [n, d] = parts(a);
  if (bn >= 0n) return frac(n ** bn, d ** bn);
  if (n === 0n) throw new RuleInputError("division by zero");
  return frac(d ** -bn, n ** -bn);
}

export function cmp(a, b) {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  const [an, ad] = parts(a);
  const [bn, bd] = parts(b);
  const left = an * bd;
  const right = bn * ad;
  return left < right ? -1 : left > right ? 1 : 0;
}

export const lt = (a, b) => cmp(a, b) < 0;
export const le = (a, b) => cmp(a, b) <= 0;
export const gt = (a, b) => cmp(a, b) > 0;
export const ge = (a, b) => cmp(a, b) >= 0;

/** Python's `==` on the values of a situation: numbers by value, every other value by identity or text. */
export function eq(a, b) {
  if (a === b) return true;
  const numeric = (x) => typeof x === "bigint" || x instanceof Fraction || typeof x === "boolean";
  if (numeric(a) && numeric(b)) return cmp(a, b) === 0;
  if (a instanceof Special && b instanceof Special) return a.text === b.text;
  if (a !== null && typeof a === "object" && typeof a.equals === "function") return a.equals(b);
  return false;
}

export const ne = (a, b) => !eq(a, b);

export function max(...values) {
  let best = values[0];
  for (const value of values.slice(1)) if (cmp(value, best) > 0) best = value;
  return best;
}

export function min(...values) {
  let best = values[0];
  for (const value of values.slice(1)) if (cmp(value, best) < 0) best = value;
  return best;
}

export function abs(value) {
  return cmp(value, 0n) < 0 ? neg(value) : value;
}

export function floor(value) {
  const [n, d] = parts(value);
  const q = n / d;
  return n % d !== 0n && n < 0n ? q - 1n : q;
}

export function ceil(value) {
  return -floor(neg(value));
}

export function roundValue(value, mode) {
  if (mode === "up") return ceil(value);
  if (mode === "down") return floor(value);
  return floor(add(value, new Fraction(1n, 2n)));
}

/** A value as a resolution reports it: a number in its one form, anything else as it is. */
export function whole(value) {
  if (value instanceof Fraction && value.d === 1n) return value.n;
  return value;
}

export function bitLength(value) {
  if (value < 0n) value = -value;
  return value === 0n ? 0 : value.toString(2).length;
}

/** A value as text: whole numbers plainly, exact decimals as decimals, other fractions as a/b. */
export function show(value) {
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (value instanceof Fraction) {
    let denominator = value.d;
    let twos = 0;
    let fives = 0;
    while (denominator % 2n === 0n) {
      denominator /= 2n;
      twos += 1;
    }
    while (denominator % 5n === 0n) {
      denominator /= 5n;
      fives += 1;
    }
    if (denominator === 1n) {
      const places = Math.max(twos, fives);
      const magnitude = value.n < 0n ? -value.n : value.n;
      const scaled = magnitude * (10n ** BigInt(places) / value.d);
      const digits = scaled.toString().padStart(places + 1, "0");
      const sign = value.n < 0n ? "-" : "";
      return `${sign}${digits.slice(0, -places)}.${digits.slice(-places)}`;
    }
    return `${value.n}/${value.d}`;
  }
  if (value === null || value === undefined) return "None";
  return String(value);
}

export const MAX_DIGITS = 1000;
export const MAX_BITS = 3322;

/** A value as an error message quotes it. */
export function shown(value) {
  if (typeof value === "string") {
    if (value.length > 60) return `"${value.slice(0, 40)}\u2026${value.slice(-8)}" (${value.length} characters)`;
    return `"${value}"`;
  }
  if (typeof value === "bigint") {
    const text = value.toString();
    return text.length > 80 ? `a number of ${text.replace("-", "").length} digits or so` : text;
  }
  if (value instanceof Fraction) return show(value);
  if (value === null || value === undefined) return "None";
  if (typeof value === "boolean") return value ? "True" : "False";
  const text = typeof value === "object" && value.constructor === Object ? JSON.stringify(value) : String(value);
  return text.length <= 80 ? text : text.slice(0, 72) + "\u2026";
}

const NUMBER_TEXT = /^[+-]?(?:[0-9]+(?:\.[0-9]+)?|[0-9]+\/[0-9]+)$/;

/** A value as an exact number; null if it is none; HugeNumber past MAX_DIGITS digits. */
export function asNumber(value) {
  let number;
  if (typeof value === "boolean") return null;
  if (typeof value === "bigint" || value instanceof Fraction) {
    number = value;
  } else if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    // as Python reads a float: the shortest decimal that gives it back (its repr; JavaScript
    // writes the same digits), exactly
    number = Number.isSafeInteger(value) ? BigInt(value) : decimal(String(value));
  } else if (typeof value === "string") {
    const text = value.trim();
    if (!NUMBER_TEXT.test(text)) return null;
    if ([...text].filter((ch) => ch >= "0" && ch <= "9").length > MAX_DIGITS) throw new HugeNumber();
    if (text.includes("/")) {
      const [top, bottom] = text.split("/");
      if (BigInt(bottom) === 0n) return null;
      number = frac(BigInt(top), BigInt(bottom));
    } else {
      number = decimal(text);
    }
  } else {
    return null;
  }
  const [n, d] = parts(number);
  if (bitLength(n) > MAX_BITS || bitLength(d) > MAX_BITS) throw new HugeNumber();
  return number;
}

function decimal(text) {
  const match = /^([+-]?)([0-9]+)(?:\.([0-9]+))?(?:e([+-]?[0-9]+))?$/.exec(text);
  if (match === null) return null;
  const sign = match[1] === "-" ? -1n : 1n;
  const fraction = match[3] || "";
  let numerator = BigInt(match[2] + fraction) * sign;
  let denominator = 10n ** BigInt(fraction.length);
  const exponent = match[4] ? Number(match[4]) : 0;
  if (exponent > 0) numerator *= 10n ** BigInt(exponent);
  if (exponent < 0) denominator *= 10n ** BigInt(-exponent);
  return frac(numerator, denominator);
}

/** A "did you mean" hint: the same word in another case, else the closest spelling. */
export function closeMatch(word, choices) {
  const same = choices.filter((choice) => choice.toLowerCase() === word.toLowerCase());
  const found = same.length ? same[0] : closest(word, choices);
  return found ? `did you mean \`${found}\`?` : "";
}

function closest(word, choices) {
  let best = null;
  let bestRatio = 0.6;
  for (const choice of choices) {
    const ratio = similarity(word, choice);
    if (ratio >= bestRatio && (best === null || ratio > bestRatio)) {
      best = choice;
      bestRatio = ratio;
    }
  }
  return best;
}

function similarity(a, b) {
  // 2 * matches / total, matches from the longest common subsequence (close to difflib's ratio)
  const rows = a.length + 1;
  const columns = b.length + 1;
  let previous = new Array(columns).fill(0);
  for (let i = 1; i < rows; i++) {
    const current = new Array(columns).fill(0);
    for (let j = 1; j < columns; j++) {
      current[j] = a[i - 1] === b[j - 1] ? previous[j - 1] + 1 : Math.max(previous[j], current[j - 1]);
    }
    previous = current;
  }
  return (2 * previous[columns - 1]) / (a.length + b.length || 1);
}

export function clip(text, limit = 60) {
  return text.length <= limit ? text : text.slice(0, limit - 20) + "\u2026";
}

/** The double nearest to numerator/denominator, ties to even (as Python's float(Fraction)). */
export function toFloat(value) {
  let [n, d] = parts(value);
  const negative = n < 0n;
  if (negative) n = -n;
  if (n === 0n) return 0;
  const limit = 1n << 53n;
  if (n < limit && d < limit) return (negative ? -1 : 1) * (Number(n) / Number(d));
  // a quotient of 55 bits or more, rounded to 53 bits (fewer for a subnormal result, whose last
  // bit weighs 2 ** -1074) with what was left over, ties to even
  const shift = 55 - (bitLength(n) - bitLength(d));
  let quotient;
  let rest;
  if (shift >= 0) {
    const scaled = n << BigInt(shift);
    quotient = scaled / d;
    rest = scaled % d;
  } else {
    const scaled = d << BigInt(-shift);
    quotient = n / scaled;
    rest = n % scaled;
  }
  let power = -shift;
  const drop = Math.max(bitLength(quotient) - 53, -1074 - power);
  const dropped = quotient & ((1n << BigInt(drop)) - 1n);
  quotient >>= BigInt(drop);
  power += drop;
  const half = 1n << BigInt(drop - 1);
  if (dropped > half || (dropped === half && (rest !== 0n || (quotient & 1n) === 1n))) quotient += 1n;
  const result = power >= 0 ? Number(quotient << BigInt(power)) : Number(quotient) * 2 ** power;
  return negative ? -result : result;
}

/** The largest whole number every JSON reader holds exactly (Number.MAX_SAFE_INTEGER). */
export const SAFE_INTEGER = 2n ** 53n - 1n;

/** A number as JSON, as the Python runtime writes it: an integer within +-SAFE_INTEGER; else
 * {"fraction": "a/b", "float": ...} ("a" alone for a whole number beyond that range), the float
 * the largest double of its sign past the range of doubles. */
export function numberJson(value) {
  const [n, d] = typeof value === "number" ? [BigInt(value), 1n] : typeof value === "bigint" ? [value, 1n] : parts(value);
  if (d === 1n && n <= SAFE_INTEGER && n >= -SAFE_INTEGER) return n;
  const float = toFloat(d === 1n ? n : value);
  return {
    fraction: d === 1n ? `${n}` : `${n}/${d}`,
    float: Number.isFinite(float) ? float : float > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE,
  };
}

export function probabilityJson(value) {
  const [n, d] = parts(value);
  return { fraction: d === 1n ? `${n}` : `${n}/${d}`, float: toFloat(value) };
}

/** JSON text of data holding BigInts (written as JSON integers, any size). */
export function jsonText(data, indent = 0) {
  const pad = (depth) => (indent ? "\n" + " ".repeat(indent * depth) : "");
  const write = (value, depth) => {
    if (value === null || value === undefined) return "null";
    if (typeof value === "bigint") return value.toString();
    if (typeof value === "number") {
      if (!Number.isFinite(value)) return "null";
      // a float past 2 ** 53 as Python writes it, with an exponent: its digits alone would read
      // back as a whole number that is not the float
      return Number.isInteger(value) && Math.abs(value) >= 1e16 ? value.toExponential() : JSON.stringify(value);
    }
    if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
    if (Array.isArray(value)) {
      if (!value.length) return "[]";
      return "[" + value.map((item) => pad(depth + 1) + write(item, depth + 1)).join(",") + pad(depth) + "]";
    }
    const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
    if (!entries.length) return "{}";
    const sep = indent ? ": " : ":";
    return (
      "{" +
      entries.map(([key, item]) => pad(depth + 1) + JSON.stringify(String(key)) + sep + write(item, depth + 1)).join(",") +
      pad(depth) +
      "}"
    );
  };
  return write(data, 0);
}
