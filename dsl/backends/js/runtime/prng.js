// The one random number generator of rulecraft (mirrors dsl/runtime/prng.py, which defines it):
// xoshiro128** 1.1 (Blackman and Vigna), 32-bit words, its state filled from the seed (a whole
// number, taken modulo 2**64) by two outputs of SplitMix64, each split low word first.  A die of
// n faces takes the index u % n of the first 32-bit output u below 2**32 - (2**32 % n).  The same
// seed gives the same faces here as in Python.

const MASK64 = (1n << 64n) - 1n;
const SPAN = 2 ** 32;

function splitmix64(state) {
  state = (state + 0x9e3779b97f4a7c15n) & MASK64;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
  return [state, z ^ (z >> 31n)];
}

function rotl(x, k) {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

export class Xoshiro128 {
  /** `new Xoshiro128(20261127n)`: a seed (a bigint, or a safe integer number). */
  constructor(seed) {
    let state;
    if (typeof seed === "bigint") state = BigInt.asUintN(64, seed);
    else if (typeof seed === "number" && Number.isSafeInteger(seed)) state = BigInt.asUintN(64, BigInt(seed));
    else throw new TypeError(`a seed is a whole number, not ${String(seed)}`);
    const words = [];
    for (let i = 0; i < 2; i++) {
      let out;
      [state, out] = splitmix64(state);
      words.push(Number(out & 0xffffffffn), Number(out >> 32n));
    }
    if (words.every((w) => w === 0)) words[0] = 1; // the one state xoshiro cannot leave
    this.s = Uint32Array.from(words);
  }

  /** The four words of state, s[0] first. */
  getstate() {
    return [...this.s];
  }

  /** The next 32-bit output, a number from 0 to 2**32 - 1. */
  next32() {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** A whole number from 0 to n - 1 (a number), each as likely (1 <= n <= 2**32). */
  below(n) {
    const count = Number(n);
    if (!Number.isInteger(count) || count < 1 || count > SPAN) throw new RangeError(`a die of ${n} faces is not rolled: at most ${SPAN} faces`);
    const limit = SPAN - (SPAN % count);
    for (;;) {
      const value = this.next32();
      if (value < limit) return value % count;
    }
  }
}
