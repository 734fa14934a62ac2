// Reads pools (JSON on stdin, as tests/backends/test_js_dice.py writes them), works each out with the
// JavaScript runtime's pools.js, and writes the weights (or the error) as JSON: the twin of
// dsl/runtime/pools.py the test compares them with.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [runtime] = process.argv.slice(2);
const { Group, Pooled, UNBOUNDED } = await import(pathToFileURL(`${runtime}/pools.js`).href);
const big = (x) => (x === null ? null : BigInt(x));
const cases = JSON.parse(readFileSync(0, "utf8"));
const out = cases.map(({ groups, reading, kept, within, side, trigger, horizon, condition, joint }) => {
  try {
    const made = groups.map(
      (g) =>
        new Group(big(g.count), big(g.sides), {
          fate: g.fate,
          explode: g.explode === "unbounded" ? UNBOUNDED : big(g.explode),
          reroll: g.reroll === null ? null : g.reroll.map(big),
          name: g.name,
        }),
    );
    const pool = new Pooled(made, reading, big(kept), within.map(big), side, trigger);
    const [weights, denominator] = joint
      ? pool.joint(big(horizon))
      : pool.weights(big(horizon), new Map(Object.entries(condition).map(([k, v]) => [k, big(v)])));
    const found = {};
    for (const [key, weight] of weights) found[String(key)] = String(weight);
    return { text: pool.text(), low: String(pool.low), high: pool.high === null ? null : String(pool.high), weights: found, denominator: String(denominator) };
  } catch (error) {
    return { error: error.message };
  }
});
process.stdout.write(JSON.stringify(out));
