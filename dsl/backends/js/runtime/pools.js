// Pools of dice that keep their identity, and what is read from them (mirrors
// dsl/runtime/pools.py, function for function: a change there is made here the same way).
//
// A `Group` is some dice of one kind: plain, Fate, exploding (once, up to N times, or without
// end), re-rolled once on some faces, and possibly named.  A `Pooled` reads one number from
// groups rolled together: their sum, the sum of the highest or lowest N, how many show a face in
// a range, the most that match, their sum with a named die and the highest other die cancelled
// when the named die first shows some faces, or how many pairs one side wins when two sides' dice are sorted
// and compared highest against highest (RISK).  A keep may pass over dice showing some faces (Cortex's
// hitches), and `left` reads the size of the largest die a keep leaves (Cortex's effect die).  Weights are BigInts over one denominator; values (faces,
// totals) are BigInts too, keys of Maps (a pair is a Map keyed by its text "a,b").

/** `Group.explode` for a die that explodes without end. */
export const UNBOUNDED = -1n;

/** The most steps a reading of a pool may take (pools.py MAX_POOL_STATES). */
export const MAX_POOL_STATES = 2000000n;

const big = (x) => BigInt(x);
const maxBig = (a, b) => (a > b ? a : b);
const minBig = (a, b) => (a < b ? a : b);

function bump(map, key, weight) {
  map.set(key, (map.get(key) ?? 0n) + weight);
}

function comb(n, k) {
  if (k < 0n || k > n) return 0n;
  let result = 1n;
  for (let i = 0n; i < k; i += 1n) result = (result * (n - i)) / (i + 1n);
  return result;
}

function total(weights) {
  let sum = 0n;
  for (const weight of weights.values()) sum += weight;
  return sum;
}

export class Group {
  /** `count` dice of `sides` sides (BigInts); see pools.py Group. */
  constructor(count, sides, { fate = false, explode = 0n, reroll = null, name = null } = {}) {
    if (typeof count !== "bigint" || typeof sides !== "bigint" || count < 1n || sides < 2n) {
      throw new RangeError(`${count}d${sides} is not a pool anyone can roll`);
    }
    if (fate && sides !== 3n) throw new RangeError("Fate dice have three faces");
    if (fate && explode) throw new RangeError("Fate dice do not explode");
    if (typeof explode !== "bigint" || explode < UNBOUNDED) {
      throw new RangeError(`a die explodes a whole number of times, not ${explode}`);
    }
    this.count = count;
    this.sides = sides;
    this.fate = fate;
    this.explode = explode;
    this.reroll = reroll === null ? null : Object.freeze([...reroll]);
    this.name = name;
    if (this.reroll !== null) {
      const [low, high] = this.reroll;
      const faces = this.faces;
      if (low > high || low < faces[0] || high > faces[faces.length - 1]) {
        throw new RangeError(`faces ${low}..${high} of ${this.diceText()} cannot be re-rolled`);
      }
      if (low === faces[0] && high === faces[faces.length - 1]) {
        throw new RangeError(`re-rolling every face of ${this.diceText()} changes nothing`);
      }
    }
    Object.freeze(this);
  }

  get faces() {
    if (this.fate) return [-1n, 0n, 1n];
    const found = [];
    for (let face = 1n; face <= this.sides; face += 1n) found.push(face);
    return found;
  }

  get plain() {
    return !this.explode && this.reroll === null;
  }

  get bounded() {
    return this.explode !== UNBOUNDED;
  }

  get low() {
    return this.faces[0];
  }

  get high() {
    if (this.explode === UNBOUNDED) return null;
    return this.explode ? this.sides * (this.explode + 1n) : this.faces[this.faces.length - 1];
  }

  with(changes) {
    return new Group(this.count, this.sides, {
      fate: this.fate,
      explode: this.explode,
      reroll: this.reroll,
      name: this.name,
      ...changes,
    });
  }

  equals(other) {
    return (
      other instanceof Group &&
      this.count === other.count &&
      this.sides === other.sides &&
      this.fate === other.fate &&
      this.explode === other.explode &&
      this.name === other.name &&
      (this.reroll === null
        ? other.reroll === null
        : other.reroll !== null && this.reroll[0] === other.reroll[0] && this.reroll[1] === other.reroll[1])
    );
  }

  diceText() {
    return this.fate ? `${this.count}dF` : `${this.count}d${this.sides}`;
  }

  text() {
    let text = this.diceText();
    if (this.explode) {
      text = "exploding " + text;
      if (this.explode !== UNBOUNDED) text += ` at most ${this.explode} time` + (this.explode !== 1n ? "s" : "");
    }
    if (this.reroll !== null) {
      const [low, high] = this.reroll;
      text += low === high ? ` rerolling ${low}` : ` rerolling ${low}..${high}`;
    }
    if (this.name !== null) text += ` as ${this.name}`;
    return text;
  }

  /** One die: [weights (Map value -> weight), denominator]. */
  die(cap, first = null) {
    return die(this, cap, first);
  }

  /** One die: [Map "face,value" -> weight, denominator]. */
  joint(cap) {
    const found = new Map();
    let denominator = 1n;
    for (const face of this.faces) {
      const [weights, each] = die(this, cap, face);
      denominator = each;
      for (const [value, weight] of weights) found.set(`${face},${value}`, weight);
    }
    return [found, denominator];
  }
}

function die(group, cap, first) {
  const faces = group.faces;
  const size = big(faces.length);
  const shown = new Map();
  let denominator = size;
  if (group.reroll === null) {
    for (const face of faces) if (first === null || face === first) shown.set(face, 1n);
  } else {
    const [low, high] = group.reroll;
    denominator = size * size;
    for (const face of faces) {
      if (first !== null && face !== first) continue;
      if (low <= face && face <= high) {
        for (const again of faces) bump(shown, again, 1n);
      } else {
        bump(shown, face, size);
      }
    }
  }
  if (!group.explode) return [shown, denominator];
  const sides = group.sides;
  let depth = group.explode;
  if (depth === UNBOUNDED) {
    if (cap === null) throw new RangeError(`${group.text()} has no highest total: say how many times it may explode`);
    const ceiling = cap >= 0n ? (cap + sides - 1n) / sides : -(-cap / sides);
    depth = maxBig(0n, ceiling - 1n);
  }
  let chain = new Map();
  for (let face = 1n; face <= sides; face += 1n) chain.set(face, 1n);
  for (let i = 0n; i < (depth ? depth - 1n : 0n); i += 1n) {
    const scale = total(chain);
    const following = new Map();
    for (let face = 1n; face < sides; face += 1n) following.set(face, scale);
    for (const [value, weight] of chain) bump(following, sides + value, weight);
    chain = following;
  }
  const chainDenominator = depth ? sides ** depth : 1n;
  const found = new Map();
  for (const [face, weight] of shown) {
    if (face === sides && depth) {
      for (const [value, more] of chain) bump(found, sides + value, weight * more);
    } else {
      bump(found, face, weight * chainDenominator);
    }
  }
  return [found, denominator * chainDenominator];
}

export function convolveWeights(first, second) {
  const found = new Map();
  for (const [a, wa] of first) for (const [b, wb] of second) bump(found, a + b, wa * wb);
  return found;
}

export function weightsPower(weights, count) {
  const values = [...weights.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const low = values[0];
  const high = values[values.length - 1];
  if (high - low + 1n === big(values.length) && new Set(values.map((v) => weights.get(v))).size === 1) {
    const weight = weights.get(low);
    const ways = addUniform([1n], count, high - low + 1n);
    const scale = weight ** count;
    const found = new Map();
    ways.forEach((way, index) => {
      if (way) found.set(count * low + big(index), way * scale);
    });
    return found;
  }
  let found = new Map([[0n, 1n]]);
  let base = new Map(weights);
  while (count) {
    if (count & 1n) found = convolveWeights(found, base);
    count >>= 1n;
    if (count) base = convolveWeights(base, base);
  }
  return found;
}

export function addUniform(ways, count, sides) {
  const width = Number(sides);
  for (let i = 0n; i < count; i += 1n) {
    const running = [0n];
    for (const way of ways) running.push(running[running.length - 1] + way);
    const padded = [...new Array(width - 1).fill(0n), ...running, ...new Array(width - 1).fill(running[running.length - 1])];
    const size = ways.length + width - 1;
    const next = [];
    for (let j = 0; j < size; j += 1) next.push(padded[width + j] - padded[j]);
    ways = next;
  }
  return ways;
}

export class Pooled {
  /** See pools.py Pooled: groups, reading ("sum" | "highest" | "lowest" | "count" | "matches" |
   * "pairs" | "cancel"), kept (BigInt), within ([low, high], null for no bound), side (how many
   * groups, first, are the side whose pairs won are counted), trigger (the named die that cancels);
   * ignoring ([low, high]: the faces a keep passes over, or null), keep ("highest" | "lowest": the
   * keep whose leftover dice `left` reads) and otherwise (what `left` reads when no die is left). */
  constructor(
    groups,
    reading = "sum",
    kept = 1n,
    within = [null, null],
    side = 0,
    trigger = null,
    { ignoring = null, keep = "highest", otherwise = null } = {},
  ) {
    if (!groups.length || !groups.every((g) => g instanceof Group)) throw new RangeError("a pool has at least one group of dice");
    this.groups = Object.freeze([...groups]);
    this.reading = reading;
    this.kept = kept;
    this.within = Object.freeze([...within]);
    this.side = side;
    this.trigger = trigger;
    this.ignoring = ignoring === null ? null : Object.freeze([...ignoring]);
    this.keep = keep;
    this.otherwise = otherwise;
    const keeps = reading === "highest" || reading === "lowest" || reading === "left";
    if (reading === "sum" && groups.length !== 1) throw new RangeError("a sum of several groups is the sum of each");
    if (keeps && !(1n <= kept && kept <= this.size)) {
      const side = reading !== "left" ? reading : keep;
      throw new RangeError(`${side} ${kept} of ${this.size} dice keeps more dice than it rolls`);
    }
    if (ignoring !== null && !keeps) throw new RangeError("only a keep passes over dice showing some faces");
    if (ignoring !== null && ignoring[0] === null && ignoring[1] === null) {
      throw new RangeError("say which faces a keep passes over");
    }
    if ((reading === "left") !== (otherwise !== null)) {
      throw new RangeError("the size of the die a keep leaves, and only that, says what it is when none is left");
    }
    if (reading === "left" && groups.some((g) => g.fate)) throw new RangeError("Fate dice have no size to read");
    if (reading === "pairs" && !(Number.isInteger(side) && 1 <= side && side < groups.length)) {
      throw new RangeError("pairs are won by the dice of one side against the dice of another");
    }
    const unbounded = groups.filter((g) => !g.bounded);
    if (unbounded.length && (reading === "left" || ignoring !== null)) {
      const what = reading === "left" ? "the dice a keep leaves" : "a keep passing over faces";
      throw new RangeError(`${what} of ${unbounded[0].text()} are not worked out: bound its explosions`);
    }
    if (unbounded.length && (reading === "matches" || reading === "pairs")) {
      const what = reading === "matches" ? "matching faces" : "pairs won";
      throw new RangeError(`${what} of ${unbounded[0].text()} are not worked out: bound its explosions`);
    }
    if (unbounded.length && reading === "count" && within[1] !== null) {
      throw new RangeError(
        `counting the dice of ${unbounded[0].text()} at or below a face is not worked out: bound its explosions`,
      );
    }
    const names = groups.filter((g) => g.name !== null).map((g) => g.name);
    if (names.length !== new Set(names).size) throw new RangeError("two dice of one pool have the same name");
    if ((reading === "cancel") !== (trigger !== null)) {
      throw new RangeError("a named die cancels dice, and only when the pool reads its dice that way");
    }
    if (trigger !== null && !names.includes(trigger)) {
      throw new RangeError(`${joined(this.groups)} has no die named ${trigger} to cancel dice`);
    }
    if (trigger !== null && within[0] === null && within[1] === null) {
      throw new RangeError(`say on which faces ${trigger} cancels dice`);
    }
    if (trigger !== null && this._split()[0].count !== 1n) {
      throw new RangeError(`the dice named ${trigger} are more than one die: one die cancels dice`);
    }
    Object.freeze(this);
  }

  get size() {
    return this.groups.reduce((sum, g) => sum + g.count, 0n);
  }

  get plain() {
    return this.groups.every((g) => g.plain);
  }

  get bounded() {
    return this.groups.every((g) => g.bounded);
  }

  names() {
    return this.groups.filter((g) => g.name !== null).map((g) => g.name);
  }

  equals(other) {
    return (
      other instanceof Pooled &&
      this.reading === other.reading &&
      this.kept === other.kept &&
      this.within[0] === other.within[0] &&
      this.within[1] === other.within[1] &&
      this.side === other.side &&
      this.trigger === other.trigger &&
      (this.ignoring === null
        ? other.ignoring === null
        : other.ignoring !== null && this.ignoring[0] === other.ignoring[0] && this.ignoring[1] === other.ignoring[1]) &&
      this.keep === other.keep &&
      this.otherwise === other.otherwise &&
      this.groups.length === other.groups.length &&
      this.groups.every((g, i) => g.equals(other.groups[i]))
    );
  }

  text() {
    if (this.reading === "sum") return this.groups[0].text();
    if (this.reading === "pairs") {
      return `opposed ${joined(this.groups.slice(0, this.side))} vs ${joined(this.groups.slice(this.side))} by pairs`;
    }
    const inner = joined(this.groups);
    if (this.reading === "highest" || this.reading === "lowest" || this.reading === "left") {
      const kept = this.kept === 1n ? "" : ` ${this.kept}`;
      const keep = this.reading !== "left" ? this.reading : this.keep;
      let text = `${keep}${kept} of ${inner}`;
      if (this.ignoring !== null) text += ` ignoring ${facesText(...this.ignoring)}`;
      return this.reading !== "left" ? text : `largest die left by ${text} else ${this.otherwise}`;
    }
    if (this.reading === "matches") return `matches of ${inner}`;
    const faces = facesText(...this.within);
    if (this.reading === "cancel") return `${inner} cancelling highest when natural ${faces} on ${this.trigger}`;
    return `${inner} showing ${faces}`;
  }

  /** For `cancel`: [the named die that cancels, the other groups]. */
  _split() {
    const named = this.groups.find((g) => g.name === this.trigger);
    return [named, this.groups.filter((g) => g !== named)];
  }

  _cancels(face) {
    const [low, high] = this.within;
    return (low === null || face >= low) && (high === null || face <= high);
  }

  _each(pick) {
    const found = [];
    for (const g of this.groups) for (let i = 0n; i < g.count; i += 1n) found.push(pick(g));
    return found;
  }

  get low() {
    if (this.reading === "left" || this.ignoring !== null) return [...this.weights(null, new Map())[0].keys()].reduce(minBig);
    const lows = this._each((g) => g.low).sort(compare);
    if (this.reading === "cancel") {
      const [named, others] = this._split();
      const rest = [];
      for (const g of others) for (let i = 0n; i < g.count; i += 1n) rest.push(g.low);
      rest.sort(compare);
      const found = [];
      if (named.faces.some((face) => this._cancels(face))) found.push(sumOf(rest.slice(0, -1)));
      const standing = named.faces.filter((face) => !this._cancels(face));
      if (standing.length) found.push(sumOf(rest) + standing[0]);
      return found.reduce(minBig);
    }
    if (this.reading === "sum") return sumOf(lows);
    if (this.reading === "highest") return sumOf(lows.slice(lows.length - Number(this.kept)));
    if (this.reading === "lowest") return sumOf(lows.slice(0, Number(this.kept)));
    return this.reading === "count" || this.reading === "pairs" ? 0n : 1n;
  }

  get high() {
    if (this.reading === "count" || this.reading === "matches") return this.size;
    if (this.reading === "pairs") {
      const first = this.groups.slice(0, this.side).reduce((sum, g) => sum + g.count, 0n);
      return minBig(first, this.size - first);
    }
    const highs = this._each((g) => g.high);
    if (highs.includes(null)) return null;
    if (this.reading === "cancel" || this.reading === "left" || this.ignoring !== null) {
      return [...this.weights(null, new Map())[0].keys()].reduce(maxBig);
    }
    const ordered = highs.sort(compare);
    if (this.reading === "sum") return sumOf(ordered);
    return this.reading === "highest"
      ? sumOf(ordered.slice(ordered.length - Number(this.kept)))
      : sumOf(ordered.slice(0, Number(this.kept)));
  }

  _cap(group, horizon) {
    if (group.bounded || horizon === null) return null;
    if (this.reading === "sum") return horizon - (this.low - group.low) + 1n;
    if (this.reading === "count") return this.within[0] !== null ? this.within[0] : 1n;
    if (this.reading === "cancel") {
      // the die adds to some of the others (or to none), each at least its lowest face
      const below = this.groups.reduce((sum, g) => sum + minBig(g.low, 0n) * g.count, 0n) - minBig(group.low, 0n);
      return horizon - below + 1n;
    }
    const lowest = this.groups.map((g) => g.low).reduce(minBig);
    return horizon + 1n - (this.kept - 1n) * minBig(lowest, 0n);
  }

  /** [Map value -> weight, denominator]; `condition`: a Map name -> first face. */
  weights(horizon, condition = new Map()) {
    const dice = [];
    let denominator = 1n;
    for (const group of this.groups) {
      const first = group.name !== null && condition.has(group.name) ? condition.get(group.name) : null;
      const [weights, each] = group.die(this._cap(group, horizon), first);
      dice.push([group.count, weights]);
      denominator *= each ** group.count;
    }
    if (this.reading === "pairs") return [paired(dice, this.side), denominator];
    if (this.reading === "cancel") return [this._cancelled(horizon, condition), denominator];
    if (this.reading === "left") {
      // dice of one size showing the same values are one group: the walk places them at once
      const merged = new Map();
      dice.forEach(([count, weights], g) => {
        const size = this.groups[g].sides;
        const values = [...weights].sort(([a], [b]) => compare(a, b));
        const key = `${size}|${values.map(([v, w]) => `${v}:${w}`).join(",")}`;
        const had = merged.get(key);
        merged.set(key, had ? [had[0] + count, weights, size] : [count, weights, size]);
      });
      const alike = [...merged.values()].map(([count, weights]) => [count, weights]);
      const sizes = [...merged.values()].map(([, , size]) => size);
      return [left(alike, sizes, this.keep, this.kept, this.ignoring, this.otherwise), denominator];
    }
    return [this._read(dice), denominator];
  }

  /** What the pool reads from dice given as [how many, weights of one] (pools.py Pooled._read). */
  _read(dice) {
    if (this.reading === "sum") {
      let summed = new Map([[0n, 1n]]);
      for (const [count, weights] of dice) summed = convolveWeights(summed, weightsPower(weights, count));
      return summed;
    }
    if (this.reading === "count") return counted(dice, this.within);
    return ordered(dice, this.reading, this.kept, this.ignoring);
  }

  /** [Map "shown,value" -> [shown, value, weight], denominator]: how many dice show a value
   * within `within` beside what the pool reads (pools.py Pooled.shown). */
  shown(within, condition = new Map()) {
    const faces = facesText(...within);
    if (!this.bounded) {
      const unbounded = this.groups.find((g) => !g.bounded);
      throw new RangeError(`how many dice of ${unbounded.text()} show ${faces} is not worked out: bound its explosions`);
    }
    if (this.reading === "pairs" || this.reading === "cancel" || this.reading === "left") {
      throw new RangeError(`how many dice of \`${this.text()}\` show ${faces} beside what it reads is not worked out`);
    }
    const split = [];
    let denominator = 1n;
    for (const group of this.groups) {
      const first = group.name !== null && condition.has(group.name) ? condition.get(group.name) : null;
      const [weights, each] = group.die(null, first);
      denominator *= each ** group.count;
      const inside = new Map([...weights].filter(([v]) => withinFaces(v, within)));
      const outside = new Map([...weights].filter(([v]) => !withinFaces(v, within)));
      split.push([group.count, inside, outside]);
    }
    const found = new Map();
    const ranges = split.map(([count]) => Array.from({ length: Number(count) + 1 }, (_, k) => BigInt(k)));
    for (const chosen of product(ranges)) {
      const dice = [];
      let ways = 1n;
      for (let g = 0; g < split.length; g += 1) {
        const [count, inside, outside] = split[g];
        const k = chosen[g];
        if ((k && !inside.size) || (count - k && !outside.size)) {
          ways = 0n;
          break;
        }
        ways *= comb(count, k);
        if (k) dice.push([k, inside]);
        if (count - k) dice.push([count - k, outside]);
      }
      if (!ways) continue;
      const shown = chosen.reduce((a, b) => a + b, 0n);
      for (const [value, weight] of this._read(dice)) {
        if (!weight) continue;
        const key = `${shown},${value}`;
        const had = found.get(key);
        found.set(key, [shown, value, (had ? had[2] : 0n) + ways * weight]);
      }
    }
    return [found, denominator];
  }

  /** `cancel`, face by face of the named die (pools.py Pooled._cancelled). */
  _cancelled(horizon, condition) {
    const [named, others] = this._split();
    const dice = [];
    for (const group of others) {
      const first = group.name !== null && condition.has(group.name) ? condition.get(group.name) : null;
      dice.push([group.count, group.die(this._cap(group, horizon), first)[0]]);
    }
    let summed = new Map([[0n, 1n]]);
    for (const [count, weights] of dice) summed = convolveWeights(summed, weightsPower(weights, count));
    const size = dice.reduce((sum, [count]) => sum + count, 0n);
    let cancelled;
    if (size >= 2n) cancelled = ordered(dice, "lowest", size - 1n);
    else cancelled = new Map([[0n, dice.reduce((product, [count, weights]) => product * total(weights) ** count, 1n)]]);
    const told = condition.has(named.name) ? [condition.get(named.name)] : named.faces;
    const found = new Map();
    for (const face of told) {
      const [shown] = named.die(this._cap(named, horizon), face);
      let piece;
      if (this._cancels(face)) {
        const mass = total(shown);
        piece = new Map([...cancelled].map(([value, weight]) => [value, weight * mass]));
      } else {
        piece = convolveWeights(summed, shown);
      }
      for (const [value, weight] of piece) if (weight) bump(found, value, weight);
    }
    return found;
  }

  /** [Map "natural,value" -> weight, denominator]; with `condition`, a named die of the pool
   * shows the face it gives first (the weights of the face and the pair together). */
  joint(horizon, condition = new Map()) {
    if (this.plain) {
      const [weights, denominator] = this.weights(horizon, condition);
      return [new Map([...weights].map(([v, w]) => [`${v},${v}`, w])), denominator];
    }
    if (this.reading !== "sum") {
      throw new RangeError(
        `the natural result of \`${this.text()}\` is not defined: its dice change after they are rolled,` +
          " and it keeps or counts some of them; name the die and read `natural N on NAME`",
      );
    }
    const group = this.groups[0];
    const [one, each] = group.joint(this._cap(group, horizon));
    const told = group.name !== null && group.name !== undefined ? condition.get(group.name) : undefined;
    const pairs = [...one]
      .map(([key, w]) => [...key.split(",").map(BigInt), w])
      .filter(([natural]) => told === undefined || natural === BigInt(told));
    let found = new Map([["0,0", [0n, 0n, 1n]]]);
    for (let i = 0n; i < group.count; i += 1n) found = convolvePairs(found.values(), pairs);
    return [new Map([...found].map(([key, [, , w]]) => [key, w])), each ** group.count];
  }
}

/** Two independent pairs of readings added, reading by reading (pools.py convolve_pairs): each
 * side an iterable of [a, b, weight]; a Map "a,b" -> [a, b, weight]. */
export function convolvePairs(first, second) {
  const seconds = [...second];
  const found = new Map();
  for (const [a1, b1, w1] of first) {
    for (const [a2, b2, w2] of seconds) {
      const key = `${a1 + a2},${b1 + b2}`;
      const had = found.get(key);
      found.set(key, [a1 + a2, b1 + b2, (had ? had[2] : 0n) + w1 * w2]);
    }
  }
  return found;
}

/** For 0..most dice left, each way of taking k of them: [k, C(left, k)] (the walks of `ordered`,
 * `paired` and the die a keep leaves). */
function waysToChoose(most) {
  const choices = [];
  for (let left = 0n; left <= most; left += 1n) {
    const row = [];
    for (let k = 0n; k <= left; k += 1n) row.push([k, comb(left, k)]);
    choices.push(row);
  }
  return choices;
}

/** For each group of dice, the weight of k of its dice showing `value`, k = 0..count. */
function powersAt(dice, value) {
  return dice.map(([count, weights]) => {
    const row = [];
    for (let k = 0n; k <= count; k += 1n) row.push((weights.get(value) ?? 0n) ** k);
    return row;
  });
}

/** Whether a value is within faces [low, high], either end null for no bound. */
export function withinFaces(value, within) {
  const [low, high] = within;
  return (low === null || value >= low) && (high === null || value <= high);
}

/** How a tier's test names the dice it counts (pools.py SHOWING): `showing 6`. */
export const SHOWING = "showing ";

/** The faces a tier's test counts (`showing 2..5` -> [2n, 5n]); null for a natural test. */
export function showingWithin(key) {
  if (typeof key !== "string" || !key.startsWith(SHOWING)) return null;
  const faces = key.slice(SHOWING.length);
  if (faces.startsWith("at least ")) return [BigInt(faces.slice(9)), null];
  if (faces.startsWith("at most ")) return [null, BigInt(faces.slice(8))];
  const [low, high] = faces.split("..");
  return [BigInt(low), BigInt(high ?? low)];
}

/** Faces as the language writes them: `6`, `2..5`, `at least 5`, `at most 2`. */
export function facesText(low, high) {
  if (high === null) return `at least ${low}`;
  if (low === null) return `at most ${high}`;
  return low === high ? `${low}` : `${low}..${high}`;
}

/** Groups of one side as the language writes them: `3d6`, `(2d6 + exploding d6)`. */
function joined(groups) {
  const text = groups.map((g) => g.text()).join(" + ");
  return text.includes(" ") ? `(${text})` : text;
}

function compare(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sumOf(values) {
  return values.reduce((a, b) => a + b, 0n);
}

function counted(dice, within) {
  const [low, high] = within;
  let found = new Map([[0n, 1n]]);
  for (const [count, weights] of dice) {
    let meeting = 0n;
    for (const [v, w] of weights) if ((low === null || v >= low) && (high === null || v <= high)) meeting += w;
    const missing = total(weights) - meeting;
    const one = new Map();
    for (let k = 0n; k <= count; k += 1n) {
      const w = comb(count, k) * meeting ** k * missing ** (count - k);
      if (w) one.set(k, w);
    }
    found = convolveWeights(found, one);
  }
  return new Map([...found].filter(([, w]) => w));
}

/** Keep or match, face by face in order (pools.py _ordered); dice showing a `passed` face are
 * placed and not kept (with fewer other dice than `kept`, all of them are kept). */
function ordered(dice, reading, kept, passed = null) {
  const values = new Set();
  for (const [, weights] of dice) for (const v of weights.keys()) values.add(v);
  const outcomes = [...values].sort(compare);
  if (reading !== "lowest") outcomes.reverse();
  const counts = dice.map(([count]) => count);
  const after = dice.map(([, weights]) => {
    let running = 0n;
    const tail = [];
    for (let i = outcomes.length - 1; i >= 0; i -= 1) {
      tail.push(running);
      running += weights.get(outcomes[i]) ?? 0n;
    }
    return tail.reverse();
  });
  const most = counts.reduce(maxBig);
  const steps =
    big(outcomes.length) * counts.reduce((p, c) => p * (c + 1n), 1n) * (reading !== "matches" ? kept + 1n : most + 1n);
  if (steps > MAX_POOL_STATES) {
    throw new RangeError(
      `a pool of ${sumOf(counts)} dice with ${outcomes.length} values each is past the work a pool is worked out` +
        ` within: ${steps.toLocaleString("en-US")} steps of faces, dice placed and dice kept, at most ${MAX_POOL_STATES.toLocaleString("en-US")}`,
    );
  }
  const finished = new Map();
  // key "left...|taken" -> [left, taken, Map sum -> weight]
  let states = new Map([[`${counts.join(",")}|0`, [counts, 0n, new Map([[0n, 1n]])]]]);
  const choices = waysToChoose(most);
  outcomes.forEach((value, index) => {
    const skipping = passed !== null && withinFaces(value, passed);
    const powers = powersAt(dice, value);
    const following = new Map();
    for (const [left, taken, sums] of states.values()) {
      const options = dice.map((_, g) =>
        choices[Number(left[g])]
          .filter(([k]) => k === 0n || powers[g][1])
          .map(([k, ways]) => [k, ways * powers[g][Number(k)]]),
      );
      for (const chosen of product(options)) {
        let shown = 0n;
        let way = 1n;
        for (const [k, w] of chosen) {
          shown += k;
          way *= w;
        }
        const rest = left.map((l, g) => l - chosen[g][0]);
        let nextTaken;
        let shift;
        if (reading === "matches") {
          nextTaken = maxBig(taken, shown);
          shift = 0n;
        } else {
          const more = skipping ? 0n : minBig(shown, kept - taken);
          nextTaken = taken + more;
          shift = more * value;
          if (nextTaken === kept) {
            let placed = way;
            rest.forEach((leftOver, g) => {
              placed *= after[g][index] ** leftOver;
            });
            if (placed) for (const [sum, weight] of sums) bump(finished, sum + shift, weight * placed);
            continue;
          }
        }
        const key = `${rest.join(",")}|${nextTaken}`;
        if (!following.has(key)) following.set(key, [rest, nextTaken, new Map()]);
        const bucket = following.get(key)[2];
        for (const [sum, weight] of sums) bump(bucket, sum + shift, weight * way);
      }
    }
    states = following;
  });
  for (const [left, taken, sums] of states.values()) {
    if (left.some((l) => l)) continue;
    for (const [sum, weight] of sums) bump(finished, reading === "matches" ? taken : sum, weight);
  }
  return new Map([...finished].filter(([, w]) => w));
}

/** The size of the largest die left when `kept` dice are kept (pools.py _left): face by face in
 * the keep's order, the state is the dice left per group, the dice kept and the largest size left;
 * the dice showing one face are kept smallest first while the keep wants more. */
function left(dice, sizes, keep, kept, passed, otherwise) {
  const values = new Set();
  for (const [, weights] of dice) for (const v of weights.keys()) values.add(v);
  const outcomes = [...values].sort(compare);
  if (keep === "highest") outcomes.reverse();
  const counts = dice.map(([count]) => count);
  const bySize = sizes.map((_, g) => g).sort((a, b) => compare(sizes[a], sizes[b]) || a - b);
  const steps =
    big(outcomes.length) * counts.reduce((p, c) => p * (c + 1n), 1n) * (kept + 1n) * big(new Set(sizes).size + 1);
  if (steps > MAX_POOL_STATES) {
    throw new RangeError(
      `the dice left by a keep of ${sumOf(counts)} dice with ${outcomes.length} values each are past the work a pool` +
        ` is worked out within: ${steps.toLocaleString("en-US")} steps of faces, dice placed, dice kept and sizes left,` +
        ` at most ${MAX_POOL_STATES.toLocaleString("en-US")}`,
    );
  }
  const most = counts.reduce(maxBig);
  const choices = waysToChoose(most);
  // key "left...|kept|largest" -> [left, kept, largest, weight]
  let states = new Map([[`${counts.join(",")}|0|0`, [counts, 0n, 0n, 1n]]]);
  for (const value of outcomes) {
    const skipping = passed !== null && withinFaces(value, passed);
    const powers = powersAt(dice, value);
    const following = new Map();
    for (const [rest, taken, largest, weight] of states.values()) {
      const options = dice.map((_, g) =>
        choices[Number(rest[g])]
          .filter(([k]) => k === 0n || powers[g][1])
          .map(([k, ways]) => [k, ways * powers[g][Number(k)]]),
      );
      for (const chosen of product(options)) {
        let way = weight;
        for (const [, w] of chosen) way *= w;
        const placed = rest.map((l, g) => l - chosen[g][0]);
        let now = taken;
        let biggest = largest;
        if (!skipping) {
          for (const g of bySize) {
            const shown = chosen[g][0];
            const more = minBig(shown, kept - now);
            now += more;
            if (shown > more) biggest = maxBig(biggest, sizes[g]);
          }
        }
        const key = `${placed.join(",")}|${now}|${biggest}`;
        const had = following.get(key);
        following.set(key, [placed, now, biggest, (had ? had[3] : 0n) + way]);
      }
    }
    states = following;
  }
  const found = new Map();
  for (const [rest, , largest, weight] of states.values()) {
    if (rest.some((l) => l) || !weight) continue;
    bump(found, largest ? largest : otherwise, weight);
  }
  return found;
}

/** How many pairs the first `side` groups win, face by face from the highest (pools.py
 * _paired): the state is how many dice of each group are still to place, with the weight of each
 * number of pairs won so far.  The dice placed on one side and not yet paired are higher than every
 * die still to place, so each pairs off with a die of the other side shown later; those of the
 * first side win.  Dice of both sides showing one face pair off as ties, won by the second side. */
function paired(dice, side) {
  const values = new Set();
  for (const [, weights] of dice) for (const v of weights.keys()) values.add(v);
  const outcomes = [...values].sort(compare).reverse();
  const counts = dice.map(([count]) => count);
  const first = sumOf(counts.slice(0, side));
  const second = sumOf(counts) - first;
  const placed = counts.reduce((p, c) => p * (c + 1n), 1n);
  const steps = big(outcomes.length) * placed * placed;
  if (steps > MAX_POOL_STATES) {
    throw new RangeError(
      `pairs of ${first} dice against ${second} with ${outcomes.length} values each are past the work a pool is` +
        ` worked out within: ${steps.toLocaleString("en-US")} steps of faces and dice placed, at most ${MAX_POOL_STATES.toLocaleString("en-US")}`,
    );
  }
  // key "left..." -> [left, Map pairs won -> weight]
  let states = new Map([[counts.join(","), [counts, new Map([[0n, 1n]])]]]);
  const most = counts.reduce(maxBig);
  const choices = waysToChoose(most);
  for (const value of outcomes) {
    const powers = powersAt(dice, value);
    const following = new Map();
    for (const [left, won] of states.values()) {
      const advantage = first - sumOf(left.slice(0, side)) - (second - sumOf(left.slice(side)));
      const options = dice.map((_, g) =>
        choices[Number(left[g])]
          .filter(([k]) => k === 0n || powers[g][1])
          .map(([k, ways]) => [k, ways * powers[g][Number(k)]]),
      );
      for (const chosen of product(options)) {
        let way = 1n;
        for (const [, w] of chosen) way *= w;
        let wins = 0n;
        if (advantage > 0n) wins = minBig(advantage, sumOf(chosen.slice(side).map(([k]) => k)));
        const rest = left.map((l, g) => l - chosen[g][0]);
        const key = rest.join(",");
        if (!following.has(key)) following.set(key, [rest, new Map()]);
        const bucket = following.get(key)[1];
        for (const [pairs, weight] of won) bump(bucket, pairs + wins, weight * way);
      }
    }
    states = following;
  }
  const done = states.get(counts.map(() => 0n).join(","));
  return new Map([...(done ? done[1] : [])].filter(([, w]) => w));
}

function* product(options) {
  if (!options.length) {
    yield [];
    return;
  }
  const [head, ...rest] = options;
  for (const item of head) for (const tail of product(rest)) yield [item, ...tail];
}
