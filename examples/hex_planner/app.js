// A hex path planner over the JavaScript module of the bundled rulebook mecha_tables, built into
// ./rules/ by `rulecraft build --target js -o examples/hex_planner/rules mecha_tables`.
//
// Each hex has a base terrain, a forest level and a surface.  Every hex the path enters is
// resolved with the unit (rules `terrain_movement` and `skidding`): its movement cost, and, where
// the path bends in that hex (it leaves in another direction than it came in), the chance of the
// piloting roll not to skid.  The page adds the costs and multiplies the chances exactly (BigInt
// fractions), as an app would: the module gives each number, the page only combines them.

import { INPUTS, RuleInputError, resolve } from "./rules/mecha_tables.js";

const COLUMNS = 8;
const ROWS = 6;
const SIZE = 30; // a hex's outer radius, in pixels
const HEX_FIELDS = ["terrain", "forest", "surface"];
const UNIT_FIELDS = ["unit", "vehicle_size", "speed", "pilot_skill"];

const hexes = new Map(); // "col,row" -> {terrain, forest, surface}
let path = []; // keys of the hexes picked, in order

// ------------------------------------------------------------------ exact numbers

function gcd(a, b) {
  a = a < 0n ? -a : a;
  while (b) [a, b] = [b, a % b];
  return a;
}

function ratio(n, d = 1n) {
  const g = gcd(n, d) || 1n;
  return d < 0n ? [-n / g, -d / g] : [n / g, d / g];
}

/** A number as the module's toDict() gives it: a BigInt, or {fraction: "a/b", float} (a
 * fraction, or a whole number past 2^53, which JSON would not carry exactly). */
function exact(json) {
  if (typeof json === "bigint") return ratio(json);
  const [n, d = "1"] = json.fraction.split("/");
  return ratio(BigInt(n), BigInt(d));
}

const plus = ([a, b], [c, d]) => ratio(a * d + c * b, b * d);
const times = ([a, b], [c, d]) => ratio(a * c, b * d);
const text = ([n, d]) => (d === 1n ? `${n}` : `${n}/${d}`);
const percent = ([n, d]) => `${((Number(n) / Number(d)) * 100).toFixed(1)}%`;

// ------------------------------------------------------------------ the grid

function cube(key) {
  const [col, row] = key.split(",").map(Number);
  const x = col - (row - (row & 1)) / 2;
  return [x, -x - row, row];
}

/** The direction of a step from one hex to a neighbour (0..5), or -1 when they do not touch. */
function direction(from, to) {
  const [a, b] = [cube(from), cube(to)];
  const step = a.map((v, i) => b[i] - v).join(",");
  return ["1,-1,0", "1,0,-1", "0,1,-1", "-1,1,0", "-1,0,1", "0,-1,1"].indexOf(step);
}

function centre(key) {
  const [col, row] = key.split(",").map(Number);
  const width = Math.sqrt(3) * SIZE;
  return [width * (col + 0.5 * (row & 1)) + width / 2 + 2, SIZE * 1.5 * row + SIZE + 2];
}

const label = (key) => {
  const [col, row] = key.split(",").map(Number);
  return `${String.fromCharCode(65 + col)}${row + 1}`;
};

function colour(hex) {
  if (hex.terrain.includes("water") || hex.terrain === "rapids") return "#9cc8ee";
  if (hex.forest !== "no_forest") return ["#cfe8b8", "#a9d48a", "#7fb862", "#5a9a44"][INPUTS.get("forest").members.indexOf(hex.forest) - 1];
  if (hex.surface !== "bare") return "#eef4fa";
  return { clear: "#f4efdc", road: "#d8d2c4", mud: "#b59b72", swamp: "#8fa58a", sand: "#f0dc9c" }[hex.terrain] ?? "#e2d8c0";
}

function short(hex) {
  const parts = [hex.terrain];
  if (hex.forest !== "no_forest") parts.push(hex.forest);
  if (hex.surface !== "bare") parts.push(hex.surface);
  return parts;
}

const drawn = new Map(); // "col,row" -> the SVG elements of the hex

/** The hexes, made once: later changes repaint them in place, so a click that starts on a hex
 * ends on the same element even when something else (an input losing focus) redraws meanwhile. */
function drawGrid() {
  const svg = document.getElementById("grid");
  const ns = "http://www.w3.org/2000/svg";
  svg.setAttribute("width", String(Math.ceil(Math.sqrt(3) * SIZE * (COLUMNS + 0.5) + 4)));
  svg.setAttribute("height", String(Math.ceil(SIZE * (1.5 * ROWS + 0.5) + 4)));
  for (const key of hexes.keys()) {
    const [x, y] = centre(key);
    const group = document.createElementNS(ns, "g");
    group.setAttribute("id", `hex-${key.replace(",", "-")}`);
    group.dataset.hex = key;
    const corners = [];
    for (let i = 0; i < 6; i += 1) {
      const angle = (Math.PI / 180) * (60 * i - 30);
      corners.push(`${(x + SIZE * Math.cos(angle)).toFixed(1)},${(y + SIZE * Math.sin(angle)).toFixed(1)}`);
    }
    const polygon = document.createElementNS(ns, "polygon");
    polygon.setAttribute("points", corners.join(" "));
    const title = document.createElementNS(ns, "title");
    const lines = [0, 1].map((i) => {
      const words = document.createElementNS(ns, "text");
      words.setAttribute("x", x.toFixed(1));
      words.setAttribute("y", (y - 4 + i * 12).toFixed(1));
      return words;
    });
    group.append(polygon, title, ...lines);
    group.addEventListener("click", () => clicked(key));
    svg.append(group);
    drawn.set(key, { group, polygon, title, lines });
  }
}

function paintGrid() {
  for (const [key, hex] of hexes) {
    const { group, polygon, title, lines } = drawn.get(key);
    const step = path.indexOf(key);
    group.setAttribute("class", step >= 0 ? "hex on-path" : "hex");
    polygon.setAttribute("fill", colour(hex));
    title.textContent = `${label(key)}: ${short(hex).join(", ")}`;
    lines[0].setAttribute("class", step >= 0 ? "order" : "");
    lines[0].textContent = step >= 0 ? String(step) : label(key);
    lines[1].textContent = step >= 0 ? "" : short(hex)[0].slice(0, 7);
  }
}

// ------------------------------------------------------------------ controls

function options(select, members, chosen) {
  select.replaceChildren(...members.map((m) => new Option(m.replaceAll("_", " "), m, false, m === chosen)));
}

function setUp() {
  for (const name of ["unit", "speed"]) {
    const spec = INPUTS.get(name);
    options(document.getElementById(name), spec.members, spec.default);
  }
  const skill = INPUTS.get("pilot_skill");
  const levels = [];
  for (let n = skill.low; n <= skill.high; n += 1n) levels.push(String(n));
  options(document.getElementById("pilot_skill"), levels, String(skill.default));
  document.getElementById("vehicle_size").value = String(INPUTS.get("vehicle_size").default);
  const brush = document.getElementById("brush");
  brush.append(new Option("add it to the path", "path", true, true));
  for (const field of HEX_FIELDS) {
    const group = document.createElement("optgroup");
    group.label = INPUTS.get(field).label;
    for (const member of INPUTS.get(field).members) group.append(new Option(member.replaceAll("_", " "), `${field}:${member}`));
    brush.append(group);
  }
  const blank = Object.fromEntries(HEX_FIELDS.map((field) => [field, INPUTS.get(field).default]));
  for (let row = 0; row < ROWS; row += 1) for (let col = 0; col < COLUMNS; col += 1) hexes.set(`${col},${row}`, { ...blank });
  for (const name of UNIT_FIELDS) document.getElementById(name).addEventListener("change", update);
  document.getElementById("clear-path").addEventListener("click", () => {
    path = [];
    update();
  });
}

function clicked(key) {
  const brush = document.getElementById("brush").value;
  say("");
  if (brush === "path") {
    if (path.includes(key)) {
      path = path.slice(0, path.indexOf(key)); // back up to before this hex
    } else if (path.length && direction(path[path.length - 1], key) < 0) {
      say(`${label(key)} does not touch ${label(path[path.length - 1])}: a path goes from hex to neighbouring hex.`);
      return;
    } else {
      path.push(key);
    }
  } else {
    const [field, member] = brush.split(":");
    hexes.get(key)[field] = member;
  }
  update();
}

function say(message) {
  document.getElementById("message").textContent = message;
}

// ------------------------------------------------------------------ the path, resolved

function unitInputs() {
  return {
    unit: document.getElementById("unit").value,
    vehicle_size: document.getElementById("vehicle_size").value,
    speed: document.getElementById("speed").value,
    pilot_skill: document.getElementById("pilot_skill").value,
  };
}

/** Each hex the path enters (the first hex is where it starts), resolved. */
function steps() {
  const found = [];
  for (let i = 1; i < path.length; i += 1) {
    const key = path[i];
    const turning = i + 1 < path.length && direction(path[i - 1], key) !== direction(key, path[i + 1]);
    const resolution = resolve(["terrain_movement", "skidding"], { ...unitInputs(), ...hexes.get(key), turning }).toDict();
    const cost = resolution.derived.cost;
    const skid = resolution.rolls.find((roll) => roll.name === "skid");
    found.push({
      key,
      turning,
      cost: typeof cost === "object" && "special" in cost ? cost.special : exact(cost),
      skid: skid ? exact(skid.probability) : null,
      cannot: resolution.restrictions.map((r) => r.text),
    });
  }
  return found;
}

function update() {
  paintGrid();
  let done;
  try {
    done = steps();
  } catch (error) {
    if (!(error instanceof RuleInputError)) throw error;
    say(error.message);
    done = [];
  }
  let total = ratio(0n);
  let blocked = null; // "X" (impassable) wins over "N/A", as X + N/A is X in the rulebook
  let noSkid = ratio(1n);
  const rows = done.map((step, index) => {
    if (typeof step.cost === "string") blocked = blocked === "X" ? "X" : step.cost;
    else total = plus(total, step.cost);
    if (step.skid) noSkid = times(noSkid, step.skid);
    const cells = [
      String(index + 1),
      label(step.key),
      short(hexes.get(step.key)).join(", ").replaceAll("_", " "),
      typeof step.cost === "string" ? step.cost : text(step.cost),
      blocked ?? text(total),
      step.turning ? "yes" : "",
      step.skid ? `${text(step.skid)} (${percent(step.skid)})` : "",
    ];
    const row = document.createElement("tr");
    row.dataset.hex = step.key;
    ["step", "hex", "terrain", "cost", "total", "turning", "skid"].forEach((name, i) => {
      const cell = document.createElement("td");
      cell.className = i === 3 || i === 4 || i === 6 ? `${name} number` : name;
      cell.textContent = cells[i];
      if (name === "cost" && step.cannot.length) cell.title = step.cannot.join("; ");
      row.append(cell);
    });
    return row;
  });
  document.querySelector("#steps tbody").replaceChildren(...rows);
  document.getElementById("total-cost").textContent = blocked ?? text(total);
  document.getElementById("no-skid").textContent = text(noSkid);
  document.getElementById("no-skid-percent").textContent = `(${percent(noSkid)})`;
  document.body.dataset.steps = String(done.length);
}

setUp();
drawGrid();
update();
