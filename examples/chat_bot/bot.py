"""A dice bot for a group chat, as a loop over lines of text: no network, no chat service.

Each line is a message; each answer is printed.  Replace `sys.stdin` and `print` with a chat
library's events and send calls, and it is a bot.

    /books                          the rulebooks it knows
    /rules BOOK                     what a rulebook can resolve
    /roll BOOK RULE [NAME=VALUE ...] [seed=N]
                                    roll the dice of a rule, with the exact chances beside them;
                                    without a seed one is drawn and shown, so any roll can be
                                    rolled again exactly
    /told BOOK RULE ROLL=FACES [NAME=VALUE ...]
                                    a roll made at the table (`fall=3,4,2` or a total, `fall=9`):
                                    what it means
    /help, /quit

Run from the repository's root after `pip install .` (or in any folder, with `--books` naming a
folder of resolvers that `rulecraft build` wrote):

    python examples/chat_bot/bot.py
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import shlex
import sys
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
DEFAULT_BOOKS = HERE.parents[1] / "generated"


class Bot:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.modules: dict[str, ModuleType] = {}
        self.names = sorted(p.stem for p in folder.glob("*.py") if not p.stem.startswith("_"))

    def book(self, name: str) -> ModuleType:
        if name not in self.names:
            raise BotError(f"no rulebook `{name}`; I know {', '.join(self.names)}")
        if name not in self.modules:
            spec = importlib.util.spec_from_file_location(f"chat_bot_books.{name}", self.folder / f"{name}.py")
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            self.modules[name] = module
        return self.modules[name]

    def answer(self, line: str) -> str | None:
        """The bot's answer to one message; None for a message that is not a command."""
        try:
            words = shlex.split(line)
        except ValueError as error:
            return f"I could not read that: {error}"
        if not words or not words[0].startswith("/"):
            return None
        command, args = words[0], words[1:]
        try:
            if command == "/help":
                return __doc__.split("\n\n")[2].rstrip() if __doc__ else ""
            if command == "/books":
                return "rulebooks: " + ", ".join(self.names)
            if command == "/rules":
                (name,) = _exactly(args, 1, "/rules BOOK")
                module = self.book(name)
                return f"{name}: " + ", ".join(module.RULES)
            if command == "/roll":
                return self.roll(args)
            if command == "/told":
                return self.told(args)
        except BotError as error:
            return f"sorry: {error}"
        return f"unknown command {command}; try /help"

    def situation(self, module: ModuleType, pairs: Iterable[str]) -> dict[str, object]:
        given: dict[str, object] = {}
        for pair in pairs:
            name, sep, raw = pair.partition("=")
            if not sep:
                raise BotError(f"`{pair}`: give inputs as NAME=VALUE")
            spec = module.INPUTS.get(name)
            if spec is None:
                raise BotError(f"no input `{name}`; the rulebook's inputs are {', '.join(module.INPUTS)}")
            try:
                given[name] = spec.parse(raw)
            except module.RuleInputError as error:
                raise BotError(str(error)) from None
        return given

    def roll(self, args: list[str]) -> str:
        if len(args) < 2:
            raise BotError("/roll BOOK RULE [NAME=VALUE ...] [seed=N]")
        module = self.book(args[0])
        rule, rest = args[1], args[2:]
        seeds = [a for a in rest if a.startswith("seed=")]
        if len(seeds) > 1:
            raise BotError("give one seed")
        if seeds:
            try:
                seed = int(seeds[0].removeprefix("seed="))
            except ValueError:
                raise BotError(f"`{seeds[0]}`: a seed is a whole number") from None
        else:
            seed = random.SystemRandom().randrange(1 << 53)
        given = self.situation(module, [a for a in rest if not a.startswith("seed=")])
        try:
            resolution = module.resolve(rule, rng=seed, **given)
        except module.RuleInputError as error:
            raise BotError(str(error)) from None
        again = " ".join([*args[:2], *(a for a in rest if not a.startswith("seed=")), f"seed={seed}"])
        return "\n".join([*_report(resolution), f"(seed {seed}: `/roll {again}` rolls it again)"])

    def told(self, args: list[str]) -> str:
        if len(args) < 3:
            raise BotError("/told BOOK RULE ROLL=FACES [NAME=VALUE ...]")
        module = self.book(args[0])
        rule, (roll_name, sep, raw), rest = args[1], args[2].partition("="), args[3:]
        if not sep or not raw:
            raise BotError(f"`{args[2]}`: say what was rolled, as ROLL=3,4,2 (the faces) or ROLL=9 (a total)")
        try:
            faces = [int(x) for x in raw.split(",")]
        except ValueError:
            raise BotError(f"`{raw}`: faces are whole numbers, as 3,4,2") from None
        rolled: dict[str, object] = {roll_name: faces if "," in raw else faces[0]}
        given = self.situation(module, rest)
        try:
            resolution = module.resolve(rule, rolled=rolled, **given)
        except module.RuleInputError as error:
            raise BotError(str(error)) from None
        return "\n".join(_report(resolution))


class BotError(Exception):
    """A message the bot cannot act on: answered, never a crash."""


def _exactly(args: list[str], count: int, usage: str) -> list[str]:
    if len(args) != count:
        raise BotError(usage)
    return args


def _chance(value: Fraction) -> str:
    return f"{value} ({float(value):.1%})"


def _dice(side: object) -> str:
    """`3d6 [3, 6, 3] = 12`: each die's faces (an explosion's after a +), what is added, the total."""
    dice = side.rolled  # type: ignore[attr-defined]
    if not dice:
        return f"{side.dice} told as {side.total}"  # type: ignore[attr-defined]
    faces = ", ".join("+".join(str(f) for f in die.faces) + ("" if die.kept else " (not kept)") for die in dice)
    bonus = side.bonus  # type: ignore[attr-defined]
    return f"{side.dice} [{faces}]" + (f" {bonus:+}" if bonus else "") + f" = {side.total}"  # type: ignore[attr-defined]


def _report(resolution: object) -> list[str]:
    lines: list[str] = []
    for roll in resolution.rolls:  # type: ignore[attr-defined]
        made = roll.rolled
        if made is None:
            continue
        dice = " vs ".join(_dice(side) for side in made.sides)
        against = f" {roll.comparison} {roll.target}" if roll.target is not None else ""
        chance = f"; chance of success {_chance(roll.probability)}" if roll.probability is not None else ""
        lines.append(f"{roll.name}: {dice or made.total}{against}: {made.outcome}{chance}")
        lines.extend(f"  then: {c.text}" for c in made.consequences)
        lines.extend(f"  {effect}" for effect in made.effects)
    for table in resolution.tables:  # type: ignore[attr-defined]
        if table.rolled is not None and table.selected is not None:
            row = table.selected
            said = ", ".join(f"{name} {value}" for name, value in row.values.items() if value != "")
            then = "".join(f"; {step}" for step in row.steps)
            lines.append(f"{table.title}: {_dice(table.rolled)}: row {row.key}: {said}{then}")
    for restriction in resolution.restrictions:  # type: ignore[attr-defined]
        lines.append(f"  {restriction.text}")
    return lines or ["nothing to roll in that situation"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--books", type=Path, default=DEFAULT_BOOKS, help="a folder of resolvers (rulecraft build -o)")
    args = parser.parse_args(argv)
    bot = Bot(args.books)
    for line in sys.stdin:
        if line.strip() == "/quit":
            break
        reply = bot.answer(line)
        if reply is not None:
            print(reply, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
