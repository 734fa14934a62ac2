// The rulecraft preview page: a playground over the rulebook's generated resolver, kept live by
// the server's event stream.  Every piece of rulebook text reaches the page through
// textContent (the `el` helper), never as markup.
"use strict";

const page = {
  state: null,        // the last /api/state
  build: null,        // the build whose cards the frames show
  selected: [],       // names of the chosen rules and tables, in the order chosen
  values: {},         // input name -> the text its widget holds
  auto: {},           // input name -> true while a computed default is used
  request: 0,         // numbers resolve requests, so a late answer never replaces a newer one
  filter: "",
};

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key in node && typeof value !== "string") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function $(id) {
  return document.getElementById(id);
}

// ------------------------------------------------------------------ numbers

function fraction(text) {
  const [top, bottom] = String(text).split("/");
  return Number(top) / Number(bottom === undefined ? 1 : bottom);
}

// A probability is {"fraction": "1/2", "float": 0.5}; printed as `rulecraft resolve` prints it:
// one decimal, and never 0% or 100% for what is merely rare.
function percent(p) {
  const value = p.float * 100;
  if (value > 0 && value < 0.1) return "<0.1%";
  if (value > 99.9 && value < 100) return ">99.9%";
  return value.toFixed(1) + "%";
}

function chance(p, extra) {
  return el("span", { class: "chance " + (extra || "") },
    el("span", { class: "exact", text: p.fraction }), " ",
    el("span", { class: "percent", text: "(" + percent(p) + ")" }));
}

// A value of the data contract as text: integers, {"fraction"}, {"dice"}, {"special"}, flags.
function show(value) {
  if (value === null || value === undefined) return "";
  if (value === true) return "yes";
  if (value === false) return "no";
  if (typeof value === "object") {
    if ("fraction" in value) return value.fraction;
    if ("dice" in value) return value.dice;
    if ("special" in value) return value.special;
  }
  return String(value);
}

// ------------------------------------------------------------------ state

async function refresh() {
  let state;
  try {
    const answer = await fetch("/api/state", { cache: "no-store" });
    state = await answer.json();
  } catch (error) {
    setStatus("bad", "cannot reach rulecraft watch: is it still running?");
    return;
  }
  page.state = state;
  renderHeader(state);
  renderProblems(state);
  if (!state.book) {
    $("entries").replaceChildren(el("p", { class: "muted", text: "Nothing to show until the rulebook checks." }));
    return;
  }
  const names = new Set(state.entries.map((entry) => entry.name));
  page.selected = page.selected.filter((name) => names.has(name));
  if (page.selected.length === 0 && state.entries.length > 0) page.selected = [state.entries[0].name];
  renderEntries();
  renderInputs();
  if (state.build !== page.build) {
    page.build = state.build;
    showCards();
    $("deck-frame").src = "/cards?build=" + state.build;
  }
  resolveNow();
}

function setStatus(kind, text) {
  const status = $("status");
  status.className = "status " + kind;
  status.textContent = text;
}

function renderHeader(state) {
  const title = state.book ? state.book.title : "(no good build yet)";
  $("book-title").textContent = title;
  document.title = title + " — rulecraft preview";
  $("book-path").textContent = state.path;
  const errors = state.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = state.diagnostics.length - errors;
  const counts = plural(errors, "error") + ", " + plural(warnings, "warning");
  if (!state.ok) {
    const kept = state.built_at ? "showing the last good build (" + state.built_at + ")" : "nothing built yet";
    setStatus("bad", counts + " — " + kept);
    return;
  }
  let text = "checked " + state.built_at + " · " + counts;
  let kind = warnings ? "warn" : "good";
  if (state.examples) {
    text += " · " + plural(state.examples.passed, "example") + " passed, " + state.examples.failed + " failed";
    if (state.examples.failed) kind = "bad";
  }
  setStatus(kind, text);
}

function plural(count, word) {
  return count + " " + word + (count === 1 ? "" : "s");
}

function renderProblems(state) {
  const section = $("problems");
  const failures = state.examples ? state.examples.failures : [];
  if (state.diagnostics.length === 0 && failures.length === 0) {
    section.hidden = true;
    return;
  }
  section.hidden = false;
  $("problems-title").textContent = "Problems (" + (state.diagnostics.length + failures.length) + ")";
  $("problems-note").textContent = state.stale
    ? "The rulebook on disk has errors: the playground and the cards show the last build that checked."
    : "";
  const items = state.diagnostics.map((d) =>
    el("li", { class: "problem " + d.severity, "data-code": d.code },
      el("pre", { text: d.text })));
  for (const title of failures) {
    items.push(el("li", { class: "problem error" }, "worked example failed: ", el("strong", { text: title }),
      " (run rulecraft test for the details)"));
  }
  $("problem-list").replaceChildren(...items);
}

// ------------------------------------------------------------------ the picker

function renderEntries() {
  const kinds = new Map();
  const wanted = page.filter.toLowerCase();
  for (const entry of page.state.entries) {
    const haystack = (entry.name + " " + entry.title).toLowerCase();
    if (wanted && !haystack.includes(wanted) && !page.selected.includes(entry.name)) continue;
    if (!kinds.has(entry.kind)) kinds.set(entry.kind, []);
    kinds.get(entry.kind).push(entry);
  }
  const groups = [];
  for (const [kind, entries] of kinds) {
    groups.push(el("fieldset", { class: "kind" },
      el("legend", { text: kind + "s" }),
      entries.map((entry) => el("label", { class: "entry", title: entry.source ? "cites " + entry.source : null },
        el("input", {
          type: "checkbox",
          name: "entry",
          value: entry.name,
          "data-entry": entry.name,
          checked: page.selected.includes(entry.name),
          onchange: (event) => choose(entry.name, event.target.checked),
        }),
        el("span", { class: "entry-title", text: entry.title }),
        el("code", { class: "entry-name", text: entry.name })))));
  }
  if (groups.length === 0) groups.push(el("p", { class: "muted", text: "Nothing matches." }));
  $("entries").replaceChildren(...groups);
}

function choose(name, on) {
  page.selected = page.selected.filter((x) => x !== name);
  if (on) page.selected.push(name);
  renderInputs();
  showCards();
  resolveNow();
}

function showCards() {
  const query = page.selected.map((name) => "rule=" + encodeURIComponent(name)).join("&");
  $("card-frame").src = "/cards?" + query + "&build=" + page.build;
}

// ------------------------------------------------------------------ inputs

function chosenEntries() {
  const byName = new Map(page.state.entries.map((entry) => [entry.name, entry]));
  return page.selected.map((name) => byName.get(name)).filter(Boolean);
}

function renderInputs() {
  const entries = chosenEntries();
  const reads = new Set(entries.flatMap((entry) => entry.reads));
  const specs = Object.values(page.state.inputs).filter((spec) => reads.has(spec.name));
  const rows = specs.map(inputRow);
  const rolled = entries.filter((entry) => entry.roll);
  if (rolled.length) {
    const low = Math.max(...rolled.map((entry) => entry.roll[0]));
    const high = Math.min(...rolled.map((entry) => entry.roll[1]));
    rows.push(inputRow({
      name: "roll", label: "The die result: picks one row (unticked: every row with its chance)",
      kind: "roll", low: low, high: high, step: 1, unit: null, members: [], default: null,
      default_from: "any roll", stat: false, describe: "int " + low + ".." + high,
    }));
  }
  if (rows.length === 0) rows.push(el("p", { class: "muted", text: "These read no inputs." }));
  $("inputs").replaceChildren(...rows);
}

function initial(spec) {
  if (spec.default === null || spec.default === undefined) return spec.low !== null ? String(spec.low) : "";
  return show(spec.default);
}

function valid(spec, text) {
  if (text === undefined) return false;
  if (spec.kind === "flag") return text === "yes" || text === "no";
  if (spec.members.length) return spec.members.includes(text);
  if (spec.kind === "int" || spec.kind === "percent" || spec.kind === "number" || spec.kind === "roll") {
    const value = fraction(text);
    if (!Number.isFinite(value)) return false;
    return (spec.low === null || value >= spec.low) && (spec.high === null || value <= spec.high);
  }
  return true;
}

function inputRow(spec) {
  const computed = spec.default_from !== null && spec.default_from !== undefined;
  if (!valid(spec, page.values[spec.name])) {
    page.values[spec.name] = initial(spec);
    if (computed) page.auto[spec.name] = true;
  }
  if (computed && page.auto[spec.name] === undefined) page.auto[spec.name] = true;
  const id = "in-" + spec.name;
  const widget = makeWidget(spec, id);
  const head = el("div", { class: "input-head" },
    el("label", { for: id },
      el("code", { class: "input-name", text: spec.name }),
      spec.stat ? el("span", { class: "badge", text: "stat" }) : null),
    el("span", { class: "muted type", text: spec.describe + (spec.unit && !spec.describe.includes(spec.unit) ? " " + spec.unit : "") }));
  const parts = [head];
  if (spec.label) parts.push(el("div", { class: "input-label", text: spec.label }));
  const body = el("div", { class: "input-body" }, widget);
  if (computed) {
    const auto = el("input", {
      type: "checkbox", id: id + "-auto", checked: !!page.auto[spec.name],
      onchange: (event) => {
        page.auto[spec.name] = event.target.checked;
        setDisabled(widget, event.target.checked);
        resolveSoon();
      },
    });
    setDisabled(widget, !!page.auto[spec.name]);
    body.append(el("label", { class: "auto", for: id + "-auto" }, auto,
      spec.kind === "roll" ? " any roll" : " computed: " + spec.default_from));
  }
  return el("div", { class: "input", "data-input": spec.name }, ...parts, body);
}

function setDisabled(widget, off) {
  for (const control of widget.querySelectorAll("input, select")) control.disabled = off;
}

function update(name, text) {
  page.values[name] = text;
  resolveSoon();
}

function makeWidget(spec, id) {
  const value = page.values[spec.name];
  if (spec.kind === "flag") {
    return el("span", { class: "widget" }, el("input", {
      type: "checkbox", id: id, checked: value === "yes",
      onchange: (event) => update(spec.name, event.target.checked ? "yes" : "no"),
    }));
  }
  if (spec.members.length) {
    return el("span", { class: "widget" }, el("select", {
      id: id, onchange: (event) => update(spec.name, event.target.value),
    }, spec.members.map((member) => el("option", { value: member, selected: member === value, text: member }))));
  }
  const numeric = ["int", "percent", "number", "roll"].includes(spec.kind);
  if (!numeric) {
    return el("span", { class: "widget" }, el("input", {
      type: "text", id: id, value: value, spellcheck: "false",
      placeholder: spec.kind === "dice" ? "e.g. 3d6 or 1d6+2" : "",
      oninput: (event) => update(spec.name, event.target.value),
    }));
  }
  const bounds = { min: spec.low === null ? null : spec.low, max: spec.high === null ? null : spec.high };
  const number = el("input", {
    type: "number", id: id, value: value, step: spec.step === null ? "any" : spec.step,
    min: bounds.min, max: bounds.max, inputmode: "decimal",
    oninput: (event) => {
      if (slider) slider.value = event.target.value;
      update(spec.name, event.target.value);
    },
  });
  let slider = null;
  const span = spec.low !== null && spec.high !== null ? spec.high - spec.low : Infinity;
  if (span > 0 && span <= 1000 && spec.step !== null) {
    slider = el("input", {
      type: "range", id: id + "-slider", "aria-label": spec.name, min: spec.low, max: spec.high, step: spec.step,
      value: value,
      oninput: (event) => {
        number.value = event.target.value;
        update(spec.name, event.target.value);
      },
    });
  }
  return el("span", { class: "widget numeric" }, slider, number);
}

$("reset").addEventListener("click", () => {
  page.values = {};
  page.auto = {};
  renderInputs();
  resolveNow();
});

// ------------------------------------------------------------------ resolving

let timer = null;

function resolveSoon() {
  clearTimeout(timer);
  timer = setTimeout(resolveNow, 120);
}

async function resolveNow() {
  clearTimeout(timer);
  if (!page.state || !page.state.book) return;
  if (page.selected.length === 0) {
    $("results").replaceChildren(el("p", { class: "muted", text: "Pick a rule or a table." }));
    $("resolve-error").hidden = true;
    return;
  }
  const inputs = {};
  for (const row of $("inputs").querySelectorAll("[data-input]")) {
    const name = row.dataset.input;
    if (page.auto[name]) continue;
    inputs[name] = page.values[name];
  }
  const number = ++page.request;
  let answer;
  try {
    const response = await fetch("/api/resolve", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ names: page.selected, inputs: inputs }),
    });
    answer = await response.json();
  } catch (error) {
    answer = { error: "cannot reach rulecraft watch: is it still running?" };
  }
  if (number !== page.request) return;
  const box = $("resolve-error");
  if (answer.error) {
    box.textContent = answer.error;
    box.hidden = false;
    return;
  }
  box.hidden = true;
  renderResolution(answer.resolution);
  document.body.dataset.resolved = String(number);
}

// ------------------------------------------------------------------ the resolution

function section(title, ...content) {
  return el("section", { class: "part" }, el("h3", { text: title }), ...content);
}

function cite(item) {
  return item.source ? item.rule + " [" + item.source + "]" : item.rule;
}

function renderResolution(res) {
  const parts = [];
  if (res.rolls.length) parts.push(section("Rolls", res.rolls.map(renderRoll)));
  if (Object.keys(res.stats).length) {
    parts.push(section("Stats", el("table", { class: "stats" },
      el("thead", {}, el("tr", {}, el("th", { text: "stat" }), el("th", { text: "value" }), el("th", { text: "given" }))),
      el("tbody", {}, Object.entries(res.stats).map(([name, value]) => {
        const changed = show(value.start) !== show(value.final);
        return el("tr", { "data-stat": name, class: changed ? "changed" : null },
          el("td", {}, el("code", { text: name })),
          el("td", { class: "value", text: show(value.final) }),
          el("td", { class: "muted", text: show(value.start) }));
      })))));
  }
  if (Object.keys(res.derived).length) {
    parts.push(section("Derived", el("table", { class: "stats derived" },
      el("tbody", {}, Object.entries(res.derived).map(([name, value]) =>
        el("tr", { "data-derived": name },
          el("td", {}, el("code", { text: name })),
          el("td", { class: "value", text: show(value) })))))));
  }
  if (res.restrictions.length) {
    parts.push(section("Restrictions", el("ul", { class: "restrictions" },
      res.restrictions.map((r) => el("li", {}, el("strong", { text: r.text }), " ",
        el("span", { class: "muted", text: "(" + cite(r) + ")" }))))));
  }
  for (const table of res.tables) parts.push(renderTable(table));
  if (res.modifiers.length) {
    parts.push(section("Modifiers", el("table", { class: "modifiers" },
      el("tbody", {}, res.modifiers.map((m) => el("tr", { class: "status-" + m.status },
        el("td", { class: "mod-status", text: m.status }),
        el("td", {}, el("code", { text: m.text })),
        el("td", { class: "muted" }, cite(m), m.label ? " — " + m.label : "",
          m.reason ? el("div", { class: "reason", text: m.reason }) : null)))))));
  }
  if (res.notes.length) {
    parts.push(section("Notes", el("ul", { class: "notes" }, res.notes.map((n) => el("li", {},
      n.quote ? el("span", { class: "erratum" }, "erratum: ", el("q", { text: n.quote }), " ") : null,
      n.kind === "aside" ? el("span", { class: "muted", text: "aside: " }) : null,
      n.text, " ", el("span", { class: "muted", text: "(" + cite(n) + ")" }))))));
  }
  if (res.trace.length) {
    parts.push(el("details", { class: "part trace", open: true },
      el("summary", { text: "Trace (" + res.trace.length + ")" }),
      el("ul", {}, res.trace.map((t) => el("li", { class: t.applied ? "applied" : "skipped" },
        el("span", { class: "mark", text: t.applied ? "✓" : "–" }), " ",
        el("code", { text: t.rule }), " ", t.item, ": ", el("span", { class: "muted", text: t.because }))))));
  }
  if (parts.length === 0) parts.push(el("p", { class: "muted", text: "Nothing applies in this situation." }));
  $("results").replaceChildren(...parts);
}

function renderRoll(roll) {
  const head = el("div", { class: "roll-head" },
    el("strong", { text: roll.name }), roll.label ? " — " + roll.label : "",
    el("span", { class: "muted", text: " (" + cite(roll) + ")" }));
  let line;
  if (roll.automatic) {
    line = el("div", { class: "roll-line" }, "automatic " + roll.automatic + " ", chance(roll.probability, "main"));
  } else {
    const bonus = roll.bonus === 0 ? "" : " + " + show(roll.bonus);
    const test = roll.dice + bonus + (roll.comparison ? " " + roll.comparison + " " + show(roll.target) : "");
    line = el("div", { class: "roll-line" }, el("code", { class: "test", text: test }), " → ", chance(roll.probability, "main"));
  }
  const details = [];
  for (const [outcome, p] of Object.entries(roll.outcomes)) {
    if (outcome === "success" || outcome === "failure") continue;
    details.push(el("li", { "data-outcome": outcome }, outcome + ": ", chance(p)));
  }
  for (const [outcome, effect] of Object.entries(roll.effects)) {
    if (effect) details.push(el("li", {}, "on " + outcome + ": " + effect));
  }
  if (roll.margins.length) {
    details.push(el("li", {}, "by margin: ", roll.margins.map((m, i) =>
      el("span", { class: "margin" }, (i ? ", " : "") + m.margin + ": ", chance(m.probability)))));
  }
  if (roll.successes.length) {
    details.push(el("li", {}, "successes: ", roll.successes.map((m, i) =>
      el("span", { class: "successes" }, (i ? ", " : "") + m.successes + ": ", chance(m.probability)))));
  }
  for (const c of roll.consequences) {
    details.push(el("li", { class: "consequence" }, c.text + ": ", chance(c.probability)));
  }
  for (const note of roll.notes) details.push(el("li", { class: "muted", text: note }));
  return el("div", { class: "roll", "data-roll": roll.name, "data-rule": roll.rule },
    head, line, details.length ? el("ul", { class: "roll-details" }, details) : null);
}

function renderTable(table) {
  const columns = table.rows.length ? Object.keys(table.rows[0].values) : [];
  const selected = table.selected ? table.selected.key : null;
  const rolled = table.rows.some((row) => row.probability !== null);
  return section("Table: " + table.title + (table.dice ? " (" + table.dice + ")" : ""),
    table.result !== null ? el("p", {}, "result " + table.result) : null,
    el("table", { class: "lookup", "data-table": table.name },
      el("thead", {}, el("tr", {}, el("th", { text: "" }), columns.map((c) => el("th", { text: c })),
        rolled ? el("th", { text: "chance" }) : null, el("th", { text: "then" }))),
      el("tbody", {}, table.rows.map((row) => el("tr", { class: row.key === selected ? "selected" : null },
        el("td", {}, el("code", { text: row.key })),
        columns.map((c) => el("td", { text: show(row.values[c]) })),
        rolled ? el("td", {}, row.probability === null ? "" : chance(row.probability)) : null,
        el("td", { class: "muted", text: row.then.join(", ") }))))));
}

// ------------------------------------------------------------------ tabs, filter, live updates

function showTab(which) {
  const play = which === "play";
  $("play").hidden = !play;
  $("deck").hidden = play;
  $("tab-play").setAttribute("aria-selected", String(play));
  $("tab-cards").setAttribute("aria-selected", String(!play));
}

// The card frame shows the chosen cards alone: the deck's page heading would only take room.
$("card-frame").addEventListener("load", (event) => {
  const inner = event.target.contentDocument;
  if (!inner || !inner.body) return;
  const heading = inner.querySelector(".page-head");
  if (heading) heading.remove();
  inner.body.style.padding = "10px";
});

$("tab-play").addEventListener("click", () => showTab("play"));
$("tab-cards").addEventListener("click", () => showTab("cards"));
$("filter").addEventListener("input", (event) => {
  page.filter = event.target.value;
  if (page.state && page.state.book) renderEntries();
});

const events = new EventSource("/events");
events.addEventListener("state", (event) => {
  if (!page.state || Number(event.data) !== page.state.version) refresh();
});
events.addEventListener("open", () => {
  if (page.state) renderHeader(page.state);
});
events.addEventListener("error", () => setStatus("bad", "disconnected from rulecraft watch; retrying…"));
