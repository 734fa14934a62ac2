"""`rulecraft new`: a rulebook project to start from.

The rulebook shows one of each thing a designer writes first (a header, units, stats and
inputs, a table, a rule with a roll, worked examples whose chances are worked out by hand) and
checks, tests, builds and prints as it is; it is already in the layout `rulecraft fmt` gives.
The tests run the whole loop on it through the command line, so it cannot go stale.
"""

from __future__ import annotations

import keyword
import re
import sys
from pathlib import Path
from string import Template

from dsl.codes import CURRENT, release_text
from dsl.parser import reserved_words

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class ScaffoldError(Exception):
    """The project cannot be made: a name that cannot name a rulebook, or files in the way."""


def check_name(name: str) -> None:
    """Raise ScaffoldError unless `name` can name a rulebook and the Python module it becomes."""
    if not _NAME.fullmatch(name):
        raise ScaffoldError(
            f"`{name}` cannot name a rulebook: use a letter, then letters, digits and `_` "
            "(it names the Python module NAME.py)"
        )
    if name in reserved_words():
        raise ScaffoldError(f"`{name}` is a word of the rulecraft language and cannot name a rulebook")
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise ScaffoldError(f"`{name}` is a Python keyword: the module {name}.py could not be imported")
    if name in sys.stdlib_module_names:
        raise ScaffoldError(f"`{name}` is a module of Python's standard library: {name}.py would hide it")


def create_project(name: str, directory: Path) -> list[Path]:
    """Write the rulebook NAME.rules and a README.md into `directory`; the paths written.

    Nothing is written if the name is refused or either file exists already."""
    check_name(name)
    if directory.exists() and not directory.is_dir():
        raise ScaffoldError(f"`{directory}` exists and is not a directory")
    files = {directory / f"{name}.rules": _RULEBOOK, directory / "README.md": _README}
    existing = [str(path) for path in files if path.exists() or path.is_symlink()]
    if existing:
        raise ScaffoldError(
            f"{' and '.join(existing)} already exist{'s' if len(existing) == 1 else ''}: nothing was written"
        )
    directory.mkdir(parents=True, exist_ok=True)
    title = name.replace("_", " ").strip().capitalize()
    for path, template in files.items():
        with path.open("x", encoding="utf-8", newline="\n") as out:
            out.write(template.substitute(name=name, title=title, release=release_text(CURRENT)))
    return list(files)


_RULEBOOK = Template("""\
# $name: a rulebook made by `rulecraft new`.  Change everything; keep it checking:
#
#   rulecraft check $name.rules     names, types, ranges and tables, with hints
#   rulecraft test $name.rules      runs the worked examples
#   rulecraft fmt $name.rules       the canonical layout (comments kept)
#
# Every chance in an example is worked out by hand in the comment above it: count the ways the
# dice show each total that succeeds, and divide by all the ways (36 for 2d6, 216 for 3d6).

rulebook $name "$title":
    source "the rules of your game, chapter 3"
    version "0.1"
    for rulecraft $release

unit hex "hexes"

stat DEX "Dexterity": int 3..18 = 10
stat MOV "Movement allowance": int 1..12 hex = 6
input moved "Hexes moved this turn": int 0..24 hex
input ground "Ground underfoot": one of {firm, mud, ice} = firm
input surefooted "Has the Surefooted skill": flag

table footing "Footing" cites "3.1" by ground:
    firm: 0
    mud: -2
    ice: -4

rule rough_ground "Rough ground" cites "3.2":
    category movement
    DEX + footing[ground] "footing"
    when ground != firm:
        MOV / 2 round up "slow going"
        when moved > MOV / 2:
            roll slip "Keep your footing": 3d6 <= DEX
                when surefooted: 2d6
                on failure: "The figure falls prone and ends its move."
    note "Footing is judged where the move ends."

    # Mud: DEX 12 - 2 = 10 and MOV 6 / 2 = 3; moving 2 is more than 3 / 2, so roll 3d6 <= 10:
    # totals 3 to 10 show in 1 + 3 + 6 + 10 + 15 + 21 + 25 + 27 = 108 of 216 ways: 1/2.
    example "Running through mud":
        given DEX = 12, moved = 2, ground = mud
        expect DEX = 10, MOV = 3, roll slip = 1/2

    # Ice: DEX 12 - 4 = 8; surefooted, roll 2d6 <= 8: totals 2 to 8 show in
    # 1 + 2 + 3 + 4 + 5 + 6 + 5 = 26 of 36 ways: 13/18.
    example "A surefooted figure on ice":
        given DEX = 12, moved = 2, ground = ice, surefooted = yes
        expect DEX = 8, roll slip = 13/18

    # Firm ground changes nothing and calls for no roll.
    example "Firm ground":
        given DEX = 12, moved = 6
        expect DEX = 12, MOV = 6
        expect no roll slip

example "The footing in mud" for footing:
    given ground = mud
    expect footing.value = -2
""")

_README = Template("""\
# $title

The rulebook `$name.rules`, written in the rulecraft language.

```sh
rulecraft check $name.rules              # names, types, ranges and tables, with hints
rulecraft test $name.rules               # the worked examples
rulecraft fmt $name.rules                # the canonical layout
rulecraft build $name.rules -o generated # a Python resolver module, $name.py, and cards
rulecraft cards $name.rules -o cards     # print-ready reference cards (PDF)
rulecraft resolve $name.rules rough_ground --set ground=mud --set moved=2
```

Each rule cites the section of the game's rules it encodes, and its worked examples prove it
says what the source says: write the numbers of each example by hand, chances included, in a
comment above it.
""")
