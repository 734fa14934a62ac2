// Tables consulted in a situation (mirrors dsl/runtime/tables.py): every row with its chance (for
// a rolled table) and the row the situation selects; cells that read inputs are worked out in
// the situation.

import { IMPASSABLE, NOT_APPLICABLE, Special, add, cmp, show, sub, whole } from "./base.js";
import { poolText } from "./dice.js";
import { integer } from "./settle.js";
import { TableResult, TableRow, TraceEntry } from "./results.js";
import { TraceSpec, rowFor } from "./specs.js";

export function tableResult(scope, table) {
  const rowResult = (row, probability, steps = []) => {
    const values = new Map();
    table.columns.forEach((column, i) => {
      const cell = row.cells[i];
      values.set(column, whole(typeof cell === "function" ? cell(scope) : cell));
    });
    return new TableRow(row.key, values, [...row.steps, ...steps], probability);
  };
  const traced = (item, clause, names, verdict) => {
    const spec = TraceSpec(table.name, table.source, item, [clause], [names], verdict);
    scope.trace.push(new TraceEntry(spec, -1, scope.v, scope.e));
  };
  const keys = new Map(table.inputs.map((name) => [name, scope.v.get(name)]));
  if (table.pool === null) {
    const row = rowFor(table, [...keys.values()].slice(0, 1));
    const rows = table.rows.map((r) => rowResult(r, null));
    const selected = row !== null ? rowResult(row, null) : null;
    const shownKeys = [...keys.values()].map((k) => show(k)).join(", ");
    const found = row !== null ? `row ${row.key}` : "no row";
    traced(`look up ${table.name}: ${found}`, `${table.name}[${shownKeys}]`, table.inputs, found);
    return new TableResult(table.name, table.title, table.source, null, keys, null, selected, rows);
  }
  const dist = scope.book.pool(table.pool);
  const offset = table.modifier ? BigInt(table.sign) * integer(scope.v.get(table.modifier)) : 0n;
  if (table.modifier) keys.set(table.modifier, scope.v.get(table.modifier));
  const chances = new Map();
  table.rows.forEach((row, index) => {
    if (row.isElse) return;
    const low = row.low !== null ? row.low : dist.low;
    const high = row.high !== null ? row.high : dist.high + (offset > 0n ? offset : 0n);
    let probability = dist.betweenP(sub(low, offset), sub(high, offset));
    if (table.above !== null && table.becomes !== null && cmp(low, table.becomes) <= 0 && cmp(table.becomes, high) <= 0) {
      probability = add(probability, sub(1n, dist.atMostP(table.above - offset)));
    }
    chances.set(index, probability);
  });
  let rest = 1n;
  for (const p of chances.values()) rest = sub(rest, p);
  const rowsOut = table.rows.map((row, index) => rowResult(row, chances.has(index) ? chances.get(index) : rest));
  let selected = null;
  let result = null;
  const rolled = scope.v.has("roll") ? scope.v.get("roll") : null;
  if (rolled !== null && rolled !== undefined) {
    result = integer(rolled) + offset;
    let steps = [];
    if (table.above !== null && table.becomes !== null && result > table.above) {
      result = table.becomes;
      steps = table.overflow_step ? [table.overflow_step] : [];
    }
    const row = rowFor(table, [result]);
    if (row !== null) selected = rowResult(row, null, steps);
  }
  let dice = poolText(table.pool);
  if (table.modifier) dice += ` ${table.sign > 0 ? "+" : "-"} ${table.modifier}`;
  if (result !== null) {
    const found = selected !== null ? `row ${selected.key}` : "no row";
    const rolledAs = table.modifier ? `roll ${table.sign > 0 ? "+" : "-"} ${table.modifier}` : "roll";
    const read = table.modifier ? ["roll", table.modifier] : ["roll"];
    traced(`roll on ${table.name}: ${result}, ${found}`, `${rolledAs} = ${result}`, read, found);
  } else {
    traced(`roll ${dice} on ${table.name}`, "no roll given", [], "every row with its chance");
  }
  return new TableResult(table.name, table.title, table.source, dice, keys, result, selected, rowsOut);
}

/** Add table cells: X (impassable) absorbs everything, then N/A. */
export function cellAdd(left, right) {
  for (const special of [IMPASSABLE, NOT_APPLICABLE]) {
    if ((left instanceof Special && left.text === special.text) || (right instanceof Special && right.text === special.text)) return special;
  }
  return add(left, right);
}

export function sendsOn(table) {
  return table.overflow_step !== null || table.rows.some((row) => row.steps.length);
}
