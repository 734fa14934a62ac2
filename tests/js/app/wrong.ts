// Calls the .d.ts must refuse (tests/backends/test_js.py expects tsc to report each line marked).
import { broken_ground, resolve } from "rulecraft-rulebooks/skirmish_terrain";

resolve("no_such_rule"); // error: not a RuleName
broken_ground({ weapon: "sword" }); // error: not a member of weapon
broken_ground({ stance: "prone" }); // error: broken_ground does not read stance
resolve("broken_ground", {}, { rng: "seven" }); // error: a seed is a number, a bigint or a Xoshiro128
