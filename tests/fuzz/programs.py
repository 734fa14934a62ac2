"""Rulebooks made to attack the compiler, and the promise they are held to.

Two sources of programs:
- `grammar_programs()`: hypothesis's `from_lark` on grammars/rulecraft.lark, every terminal drawn
  from a small vocabulary (so names meet again and declarations get used), blocks rendered from
  the indenter's tokens;
- `mutant()`: a real rulebook (the bundled ones, the fixtures, the rulebooks of the docs) changed
  in one to three places the way a designer slips: a number, a name, an operator, dice, a line
  deleted, repeated or moved, an indentation.

`exercise()` holds a program to the promise of docs/language.md section 16: `check` never fails
with an exception; whatever it accepts builds, imports, and resolves every rule and table at the
defaults and at random inputs within the declared ranges, raising nothing but RuleInputError, and
agrees with the reference resolver.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark

from dsl.compiler import compile_text, generate, load_module
from dsl.parser import _lark
from tests.differential import Tally, compare, random_situation, texts_of

ROOT = Path(__file__).resolve().parents[2]

_NAMES = (
    "DEX",
    "MOV",
    "moved",
    "weapon",
    "fog",
    "zone",
    "damage",
    "x",
    "a",
    "t",
    "r",
    "mud",
    "fall",
    "missile",
    "high",
)
_NUMBERS = ("0", "1", "2", "3", "5", "10", "20", "100", "0.5", "1000")
_DICE = ("2d6", "3d6", "1d20", "d100", "0d6", "10d10", "1d3")
_INDENT, _DEDENT = "\x01", "\x02"


_VOCABULARY = """rulebook generated "Generated":
    source "grammar"

type level = levels {low < mid < high}
stat DEX "Dexterity": int 0..20 = 10
stat MOV: int 1..12 = 6
stat damage: dice = 2d6
stat zone: level
input moved: int 0..24
input weapon: one of {none, thrown, missile}
input fog: flag
input x: number 0..10
group a: strongest

"""
"""Declarations a generated program may use: names of the vocabulary the generator draws from."""


def grammar_programs() -> st.SearchStrategy[str]:
    """A rulebook of a fixed vocabulary, then declarations generated from the grammar."""
    declaration = st.one_of(*(_grammar(start) for start in ("rule_decl", "table_decl", "example_decl")))
    return st.lists(declaration, min_size=1, max_size=4).map(lambda items: _VOCABULARY + "\n".join(items))


def grammar_files() -> st.SearchStrategy[str]:
    """Whole files from the grammar's start rule (header and vocabulary included, if drawn)."""
    return _grammar("start")


def _grammar(start: str) -> st.SearchStrategy[str]:
    """Text of one grammar rule, each terminal followed by a space so tokens stay apart."""
    lark = _lark()
    explicit: dict[str, st.SearchStrategy[str]] = {}
    for terminal in lark.terminals:
        if terminal.pattern.type == "str":
            explicit[terminal.name] = st.just(terminal.pattern.value + " ")
        elif not terminal.name.startswith(("_", "__IGNORE", "COMMENT")):
            explicit[terminal.name] = st.from_regex(terminal.pattern.to_regexp(), fullmatch=True).map(_spaced)
    explicit.update(
        NAME=st.sampled_from(_NAMES).map(_spaced),
        NUMBER=st.sampled_from(_NUMBERS).map(_spaced),
        DICE=st.sampled_from(_DICE).map(_spaced),
        DIE=st.sampled_from(("d6", "d20", "d100")).map(_spaced),
        STRING=st.sampled_from(('"s"', '"a note"', '""', '"\\u202e"')).map(_spaced),
        COMMENT=st.just(""),
        __IGNORE_0=st.just(" "),
        __IGNORE_2=st.just(" "),
        _NL=st.just("\n"),
        _INDENT=st.just(_INDENT),
        _DEDENT=st.just(_DEDENT),
    )
    terminals, rules, ignored = lark.grammar.compile([start], ())
    used = {t.name for t in terminals} | set(ignored)
    used |= {symbol.name for rule in rules for symbol in rule.expansion if symbol.is_term}
    explicit = {name: strategy for name, strategy in explicit.items() if name in used}
    return from_lark(lark, start=start, explicit=explicit).map(render_blocks)


def _spaced(text: str) -> str:
    return text + " "


def render_blocks(raw: str) -> str:
    """Turn the indenter's tokens back into indentation: an indent or dedent opens the line
    after the line break it follows."""
    level = 0
    out = []
    for line in raw.split("\n"):
        while line[:1] in (_INDENT, _DEDENT, " ") and line:
            if line[0] == _INDENT:
                level += 1
            elif line[0] == _DEDENT:
                level -= 1
            line = line[1:]
        line = line.replace(_INDENT, "").replace(_DEDENT, "").strip()
        out.append("    " * max(level, 0) + line if line else "")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------- mutants of real rulebooks


def seeds() -> list[tuple[str, str]]:
    """(name, text) of every real rulebook the project has."""
    found: list[tuple[str, str]] = []
    for folder in ("rulebooks", "tests/fixtures/valid", "tests/fixtures/features"):
        for path in sorted((ROOT / folder).glob("*.rules")):
            found.append((f"{folder}/{path.name}", path.read_text(encoding="utf-8")))
    for doc in ("README.md", "docs/language.md"):
        text = (ROOT / doc).read_text(encoding="utf-8")
        for index, block in enumerate(re.findall(r"```rules[^\n]*\n(.*?)```", text, flags=re.S)):
            found.append((f"{doc}#{index}", block))
    return found


_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
_OPERATOR = re.compile(r"<=|>=|==|!=|(?<![<>=!])[<>](?!=)|(?<=\s)[-+*/](?=\s)")
_DICE_TOKEN = re.compile(r"\b\d*[dD]\d+\b")
_SWAPS = {"when": "unless", "unless": "when", "up": "down", "down": "nearest", "and": "or", "or": "and"}


def mutant(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        lines = _mutate(lines, rng)
    return "\n".join(lines)


def _mutate(lines: list[str], rng: random.Random) -> list[str]:
    if not lines:
        return lines
    index = rng.randrange(len(lines))
    line = lines[index]
    kind = rng.randrange(10)
    if kind == 0:  # a number
        replacement = rng.choice(("0", "1", "-1", "2", "7", "13", "20", "99", "100", "1000", "0.5", "3/4"))
        line = _replace_one(_NUMBER, line, rng, lambda _: replacement)
    elif kind == 1:  # a name, taken from elsewhere in the file
        names = _NAME.findall("\n".join(lines))
        if names:
            line = _replace_one(_NAME, line, rng, lambda _: rng.choice(names))
    elif kind == 2:  # an operator
        line = _replace_one(
            _OPERATOR, line, rng, lambda _: rng.choice(("<", "<=", ">", ">=", "==", "!=", "+", "-", "*", "/"))
        )
    elif kind == 3:  # dice
        line = _replace_one(
            _DICE_TOKEN,
            line,
            rng,
            lambda _: f"{rng.choice((0, 1, 2, 3, 10, 100, 101))}d{rng.choice((1, 2, 6, 20, 100, 1000, 1001))}",
        )
    elif kind == 4:  # a word of the language
        line = _replace_one(re.compile(r"\b(?:when|unless|up|down|and|or)\b"), line, rng, lambda m: _SWAPS[m.group(0)])
    elif kind == 5:
        return lines[:index] + lines[index + 1 :]
    elif kind == 6:
        return [*lines[: index + 1], line, *lines[index + 1 :]]
    elif kind == 7:
        other = rng.randrange(len(lines))
        lines = list(lines)
        lines[index], lines[other] = lines[other], lines[index]
        return lines
    elif kind == 8:  # indentation
        stripped = line.lstrip(" ")
        line = " " * max(0, len(line) - len(stripped) + rng.choice((-4, -2, 2, 4))) + stripped
    else:  # a line of another place of the file, at this one's indentation
        donor = rng.choice(lines).strip()
        indent = line[: len(line) - len(line.lstrip(" "))]
        return [*lines[:index], indent + donor, *lines[index:]]
    return [*lines[:index], line, *lines[index + 1 :]]


def _replace_one(pattern: re.Pattern[str], line: str, rng: random.Random, make: object) -> str:
    matches = list(pattern.finditer(line))
    if not matches:
        return line
    chosen = rng.choice(matches)
    replacement = make(chosen)  # type: ignore[operator]
    return line[: chosen.start()] + replacement + line[chosen.end() :]


# ---------------------------------------------------------------------- the promise


@dataclass
class Outcome:
    programs: int = 0
    accepted: int = 0
    resolved: int = 0
    problems: list[str] = field(default_factory=list)


def exercise(text: str, name: str, outcome: Outcome, rng: random.Random, situations: int = 4) -> None:
    """Hold one program to the promise; record what breaks it in `outcome.problems`."""
    outcome.programs += 1
    try:
        compiled = compile_text(text, name)
    except Exception as error:  # the promise: check reports, never raises
        outcome.problems.append(f"check raised {error!r} on {name}:\n{text}")
        return
    if not compiled.ok:
        return
    outcome.accepted += 1
    book = compiled.book
    assert book is not None
    try:
        module = load_module(generate(compiled), book.name)
    except Exception as error:
        outcome.problems.append(f"build raised {error!r} on {name}:\n{text}")
        return
    names = [*book.rules, *book.tables]
    texts = texts_of(book)
    tally = Tally()
    for rule in names:
        try:
            module.resolve(rule)
        except module.RuleInputError as error:
            outcome.problems.append(f"{rule} refused its defaults ({error}) in {name}:\n{text}")
        except Exception as error:
            outcome.problems.append(f"{rule} raised {error!r} at its defaults in {name}:\n{text}")
            return
        for _ in range(situations):
            chosen = [rule, *rng.sample(names, 1)] if rng.random() < 0.2 else [rule]
            chosen = list(dict.fromkeys(chosen))
            try:
                compare(book, module, chosen, random_situation(book, chosen, rng, texts), tally)
            except Exception as error:
                outcome.problems.append(f"{chosen} raised {error!r} in {name}:\n{text}")
                return
    outcome.resolved += tally.situations
    outcome.problems += [f"{line}\nin {name}:\n{text}" for line in tally.mismatches[:2]]
