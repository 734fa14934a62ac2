"""The `rulecraft` command line.

Exit codes: 0 clean (warnings allowed), 1 errors in a rulebook or a failed example, 2 bad usage
(unknown option, rulebook or rule; a value that does not fit an input; an output path that cannot
be written).  A user's mistake is always a message, never a traceback; an unexpected exception (a
bug in rulecraft) is one line on stderr and exit 1, or its traceback with RULECRAFT_DEBUG=1.

A command run with `--json` reports every error as JSON on stdout, with a stable code and the same
exit code (`rulecraft schema error`; ERROR_CODES): an app reads one stream, in one format.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

import click

from dsl import __version__
from dsl.files import recursion_room, rulebook_files
from dsl.resources import bundled_rulebooks_dir

if TYPE_CHECKING:
    from dsl.build import Written
    from dsl.cache import Entry
    from dsl.compiler import Compiled
    from dsl.diagnostics import Diagnostic

# What a command needs is imported when it runs: `resolve`, `describe` and `list` of a rulebook
# compiled before (dsl/cache.py) load neither the parser, the checks, the cards nor the balance
# tools.  The few names below stay attributes of this module (tests replace them).


def compile_file(path: Path, data: bytes | None = None) -> Compiled:
    from dsl.compiler import compile_file as compile_

    return compile_(path, data=data)


def write_outputs(*args: Any, **kwargs: Any) -> Written:
    from dsl.build import write_outputs as write

    return write(*args, **kwargs)


DEFAULT_RULEBOOKS = Path("rulebooks")
DEFAULT_OUTPUT = Path("generated")


DEBUG_VARIABLE = "RULECRAFT_DEBUG"

ERROR_CODES: dict[str, str] = {
    "usage": "the command line is wrong: an unknown command or option, a missing argument",
    "no-rulebook": "BOOK names no rulebook file and no bundled rulebook",
    "no-rule": "a name is no rule, terrain, condition, trait or table of the rulebook",
    "bad-input": "a value given for an input does not fit it, or names no input",
    "repeated-input": "`--set` names the same input twice",
    "rulebook-errors": "the rulebook has errors (`diagnostics` lists them)",
    "internal": "a bug in rulecraft",
}
"""The code of each error a command run with `--json` reports (as the `code` of its JSON)."""


class Usage(click.UsageError):
    """Bad usage: exit 2 with the message; `code` says which kind (ERROR_CODES)."""

    def __init__(self, message: str, code: str = "usage") -> None:
        super().__init__(message)
        self.code = code


class _Failed(Exception):
    """A command that cannot go on (errors in the rulebook): exit 1, its message already printed
    (or, with `--json`, to be printed as JSON)."""

    def __init__(self, message: str, code: str, diagnostics: list[dict[str, object]]) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.diagnostics = diagnostics


def _json_requested(args: list[str]) -> bool:
    """Whether the command line asks for JSON: `--json` among its options, before any `--`."""
    if "--" in args:
        args = args[: args.index("--")]
    return "--json" in args


def _in_json_mode() -> bool:
    ctx = click.get_current_context(silent=True)
    return ctx is not None and bool(ctx.find_root().meta.get(_JSON_MODE))


_JSON_MODE = "rulecraft.json"


def _echo_json_error(code: str, message: str, exit_code: int, diagnostics: list[dict[str, object]] | None = None) -> None:
    from dsl.report import json_text

    error: dict[str, object] = {"code": code, "message": message, "exit_code": exit_code}
    if diagnostics is not None:
        error["diagnostics"] = diagnostics
    click.echo(json_text({"error": error}))


class _Main(click.Group):
    """The command group, with a last resort: an exception that escapes a command is a bug in
    rulecraft, shown as one line (and exit 1), not as a traceback, unless RULECRAFT_DEBUG=1."""

    _LAZY: ClassVar[dict[str, tuple[str, str]]] = {
        "fmt": ("dsl.editing", "fmt"),
        "new": ("dsl.editing", "new"),
        "sweep": ("dsl.balance.commands", "sweep"),
        "chart": ("dsl.balance.commands", "chart"),
        "tune": ("dsl.balance.commands", "tune"),
    }
    """Commands defined elsewhere, imported only when one of them is run (or --help lists them)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._LAZY})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in self._LAZY:
            module, name = self._LAZY[cmd_name]
            command = getattr(importlib.import_module(module), name)
            assert isinstance(command, click.Command)
            self.add_command(command, cmd_name)
        return command

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # read before click parses anything, so that an error in parsing is JSON too
        as_json = ctx.meta[_JSON_MODE] = _json_requested(args)
        try:
            return super().parse_args(ctx, args)
        except click.ClickException as error:
            if not as_json:
                raise
            _echo_json_error("usage", error.format_message(), error.exit_code)
            sys.exit(error.exit_code)

    def invoke(self, ctx: click.Context) -> Any:
        as_json = bool(ctx.meta.get(_JSON_MODE))
        try:
            with recursion_room():
                return super().invoke(ctx)
        except click.ClickException as error:
            if not as_json:
                raise
            _echo_json_error(getattr(error, "code", "usage"), error.format_message(), error.exit_code)
            sys.exit(error.exit_code)
        except _Failed as failed:
            if as_json:
                _echo_json_error(failed.code, failed.message, 1, failed.diagnostics)
            sys.exit(1)
        except (click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:
            # the reader went away (`rulecraft describe ... | head`): nothing more to say, and the
            # interpreter must not complain again when it flushes stdout on exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            sys.exit(141)
        except Exception as error:
            if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
                raise
            if as_json:
                _echo_json_error("internal", internal_error(error), 1)
            else:
                _echo_err(internal_error(error))
            sys.exit(1)


def internal_error(error: BaseException) -> str:
    """The one line that reports a bug in rulecraft."""
    message = " ".join(str(error).split())
    if len(message) > 300:
        message = message[:297] + "..."
    detail = f"{type(error).__name__}: {message}" if message else type(error).__name__
    return (
        f"rulecraft: internal error: {detail} "
        "(this is a bug in rulecraft; please report it with the rulebook that caused it)"
    )


def _echo_err(text: str) -> None:
    click.echo(text, err=True)


def _report(compiled: list[Compiled]) -> tuple[int, int]:
    errors = warnings = 0
    for item in compiled:
        if item.diagnostics:
            _echo_err(item.render())
        errors += len(item.errors)
        warnings += len(item.warnings)
    return errors, warnings


def _summary(verb: str, count: int, errors: int, warnings: int) -> str:
    books = f"{count} rulebook{'s' if count != 1 else ''}"
    return (
        f"{verb} {books}: {errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''}"
    )


def _paths(paths: tuple[Path, ...]) -> list[Path]:
    """The rulebook files named, or by default those in ./rulebooks (else the bundled ones)."""
    if not paths:
        default = DEFAULT_RULEBOOKS if DEFAULT_RULEBOOKS.is_dir() else bundled_rulebooks_dir()
        paths = (default,)
    for path in paths:
        if not path.exists():
            raise Usage(f"no such file or directory: {path}")
    files = rulebook_files(list(paths))
    if not files:
        raise Usage("no rulebooks (*.rules) found in " + ", ".join(str(p) for p in paths))
    return files


def _book_path(book: str) -> Path:
    """BOOK is a rulebook path, or the name of a bundled rulebook."""
    path = Path(book)
    if path.is_dir():
        raise Usage(f"`{book}` is a directory; BOOK is one rulebook file, or the name of a bundled rulebook")
    if not path.exists():
        bundled = bundled_rulebooks_dir()
        candidates = {p.stem: p for p in rulebook_files([bundled])} if bundled.is_dir() else {}
        if book not in candidates:
            known = ", ".join(sorted(candidates)) or "none"
            raise Usage(
                f"no rulebook file `{book}` and no bundled rulebook of that name (bundled: {known})", "no-rulebook"
            )
        path = candidates[book]
    return path


def _bundled_or_path(path: Path) -> Path:
    """A path as given, or, when no such file exists, the bundled rulebook of that name."""
    if path.exists() or path.suffix or len(path.parts) != 1:
        return path
    return _book_path(str(path))


def _book(book: str) -> Compiled:
    """BOOK, compiled; its errors end the command."""
    return _checked(_book_path(book))


def _checked(path: Path, data: bytes | None = None) -> Compiled:
    """The rulebook at `path` (`data`: its bytes, when read already), compiled; its errors end
    the command."""
    compiled = compile_file(path, data)
    if not compiled.ok:
        message = f"{compiled.path} has errors; fix them first (rulecraft check {compiled.path})"
        if _in_json_mode():
            raise _Failed(message, "rulebook-errors", [_diagnostic_json(d) for d in compiled.diagnostics])
        _echo_err(compiled.render())
        _fail(message)
    return compiled


def _diagnostic_json(diagnostic: Diagnostic) -> dict[str, object]:
    span = diagnostic.span
    return {
        "path": span.path,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
        "severity": diagnostic.severity.value,
        "code": diagnostic.code,
        "message": diagnostic.message,
        "hint": diagnostic.hint,
    }


def _compiled_book(book: str) -> Entry:
    """BOOK's resolver module and facts: from the cache when BOOK is unchanged since it was last
    compiled, else compiled now (its errors end the command) and kept for the next run."""
    from dsl import cache

    path = _book_path(book)
    return cache.entry(path, lambda data: _checked(path, data))


def _compile_all(files: list[Path]) -> list[Compiled]:
    """Compile rulebooks named together; two of them may not share a rulebook name."""
    from dsl.compiler import check_rulebook_names

    compiled = [compile_file(p) for p in files]
    check_rulebook_names(compiled)
    return compiled


def _output_dir(output: Path) -> Path:
    """OUTPUT, if it is (or can become) a directory; else a usage error naming it."""
    for path in (output, *output.parents):
        if path.is_dir():
            return output
        if path.exists() or path.is_symlink():
            what = "it" if path == output else f"`{path}`"
            raise Usage(f"cannot write to `{output}`: {what} is not a directory")
    return output


def _unwritable(output: Path, error: OSError) -> Usage:
    where = f" ({error.filename})" if error.filename and str(error.filename) != str(output) else ""
    return Usage(f"cannot write to `{output}`{where}: {error.strerror or error}")


def _waiting(output: Path) -> None:
    _echo_err(f"waiting for another rulecraft process writing to {output} ...")


def _fail(message: str) -> NoReturn:
    _echo_err(f"error: {message}")
    sys.exit(1)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rulecraft")
def main() -> None:
    """rulecraft: write tabletop-game rules as code, check them, compile them to resolvers and cards."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
def check(paths: tuple[Path, ...]) -> None:
    """Parse and check rulebooks; print every diagnostic.

    PATHS are rulebook files or directories (default: ./rulebooks).
    """
    files = _paths(paths)
    compiled = _compile_all(files)
    errors, warnings = _report(compiled)
    _echo_err(_summary("checked", len(compiled), errors, warnings))
    sys.exit(1 if errors else 0)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=None,
    help=f"Directory for the generated modules (cards go to OUTPUT/cards)  [default: {DEFAULT_OUTPUT}; none for --target js]",
)
@click.option(
    "--check", "check_only", is_flag=True, help="Write nothing; exit 1 if OUTPUT is not what a build would write."
)
@click.option("--cards/--no-cards", default=True, show_default=True, help="Also build reference cards and sheets.")
@click.option(
    "--standalone",
    is_flag=True,
    help="Also write the runtime into OUTPUT (as rulecraft_runtime/), for an app that copies files in"
    " rather than installing rulecraft.",
)
@click.option(
    "--target",
    type=click.Choice(["python", "js"]),
    default="python",
    show_default=True,
    help="python: resolver modules and cards; js: an npm package of ES modules with .d.ts types"
    " and their runtime (exact fractions with BigInt).",
)
@click.option(
    "--package-name",
    "package",
    default=None,
    help="The npm package's name (--target js)  [default: rulecraft-rulebooks]",
)
def build(
    paths: tuple[Path, ...],
    output: Path | None,
    check_only: bool,
    cards: bool,
    standalone: bool,
    target: str,
    package: str | None,
) -> None:
    """Compile rulebooks to Python resolver modules (and cards), or with `--target js -o OUT` to
    an npm package of JavaScript modules.

    Nothing is written unless every rulebook compiles: OUTPUT is never left half-updated.
    """
    from dsl.build import BuildError, build_outputs, check_outputs
    from dsl.outdir import OutputError

    if target == "js":
        from dsl.backends.js.package import valid_package_name

        if output is None:
            raise Usage("--target js writes an npm package: name its folder with -o OUT")
        if standalone:
            raise Usage("--standalone is for the Python target: a JavaScript build always writes its runtime")
        if package is not None and not valid_package_name(package):
            raise Usage(f"--package-name {package!r} is not an npm package name (lowercase letters, digits, - . _ ~)")
        cards = False
    elif package is not None:
        raise Usage("--package-name names the npm package of --target js")
    output = output if output is not None else DEFAULT_OUTPUT
    files = _paths(tuple(_bundled_or_path(path) for path in paths))
    _output_dir(output)
    compiled = _compile_all(files)
    errors, warnings = _report(compiled)
    if errors:
        _echo_err(_summary("checked", len(compiled), errors, warnings))
        _fail("nothing was written")
    try:
        outputs = build_outputs(compiled, output, cards=cards, standalone=standalone, target=target, package=package)
    except BuildError as error:
        _fail(str(error))
    if check_only:
        try:
            stale = check_outputs(outputs, output, cards=cards)
        except OutputError as error:
            raise Usage(str(error)) from None
        except OSError as error:
            raise _unwritable(output, error) from None
        if stale:
            for line in stale:
                _echo_err(f"stale: {line}")
            _fail(f"{output} is out of date; run `rulecraft build` and commit the result")
        _echo_err(f"{output} is up to date ({len(outputs)} files)")
        return
    try:
        written = write_outputs(outputs, output, cards=cards, waiting=lambda: _waiting(output))
    except OutputError as error:
        raise Usage(str(error)) from None
    except OSError as error:
        raise _unwritable(output, error) from None
    for note in written.notes:
        _echo_err(f"note: {note}")
    removed = f", {written.removed} removed" if written.removed else ""
    _echo_err(
        f"built {len(compiled)} rulebook(s) into {output}: {written.changed} file(s) changed, "
        f"{written.unchanged} unchanged{removed}"
    )


@main.command(name="list")
@click.argument("book")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_(book: str, as_json: bool) -> None:
    """List the rules, terrains, conditions, traits and tables of BOOK; each resolves by name."""
    from dsl.report import json_text

    data = _compiled_book(book).facts.listing
    if as_json:
        click.echo(json_text(data))
        return
    from dsl.describe import list_lines
    from dsl.report import visible

    for line in list_lines(data, book):
        click.echo(visible(line))


@main.command()
@click.argument("book")
@click.argument("rule")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def describe(book: str, rule: str, as_json: bool) -> None:
    """Describe RULE of BOOK: everything it does (modifiers, rolls with their changes, composed
    rules, derived values, restrictions, notes; a table's keys, columns and rows), and the inputs
    it reads with types, ranges, choices and defaults."""
    from dsl.report import json_text

    entry = _compiled_book(book)
    module = entry.module
    info = module.RULES.get(rule)
    if info is None:
        from difflib import get_close_matches

        close = get_close_matches(rule, list(module.RULES), n=1)
        raise Usage(
            f"no rule or table `{rule}` in {module.RULEBOOK.name}" + (f"; did you mean `{close[0]}`?" if close else ""),
            "no-rule",
        )
    inputs = [module.INPUTS[name] for name in info.reads]
    data = entry.facts.described[rule]
    if as_json:
        click.echo(json_text(data))
        return
    from dsl.describe import describe_lines
    from dsl.report import visible

    for line in describe_lines(data, inputs):
        click.echo(visible(line))


@main.command()
@click.argument("book")
@click.argument("names", nargs=-1, required=True)
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE", help="An input of the situation (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the resolution as JSON.")
@click.option("--rounds", type=click.IntRange(1), default=None, help="Resolve a rule's sequence over N rounds.")
@click.option("--roll", "rolling", is_flag=True, help="Roll the situation's rolls and tables (reports the seed).")
@click.option("--seed", type=int, default=None, help="Roll from this seed (implies --roll): the same seed, the same dice.")
@click.option(
    "--rolled",
    "told",
    multiple=True,
    metavar="ROLL=FACES|TOTAL",
    help="A result rolled elsewhere: `fall=3,4,2` (the faces) or `fall=9` (a total); with --rounds, `2:fall=9` for round 2; repeatable.",
)
def resolve(
    book: str,
    names: tuple[str, ...],
    settings: tuple[str, ...],
    as_json: bool,
    rounds: int | None,
    rolling: bool,
    seed: int | None,
    told: tuple[str, ...],
) -> None:
    """Resolve a situation in which the rules and tables NAMES apply together.

    With --roll (or --seed N) its rolls and the tables it rolls on are rolled, each die shown; with
    --rolled the results rolled elsewhere are told.  Either reports what came of each."""
    module = _compiled_book(book).module
    for name in names:
        if name not in module.RULES:
            from difflib import get_close_matches

            close = get_close_matches(name, list(module.RULES), n=1)
            raise Usage(
                f"no rule or table `{name}` in {module.RULEBOOK.name}"
                + (f"; did you mean `{close[0]}`?" if close else ""),
                "no-rule",
            )
    given: dict[str, object] = {}
    for setting in settings:
        name, sep, raw = setting.partition("=")
        name = name.strip()
        if not sep or not name:
            raise Usage(f"--set takes NAME=VALUE, not `{setting}`")
        if name in given:
            raise Usage(
                f"--set gives `{name}` twice; give each input once (the situation has one {name})", "repeated-input"
            )
        spec = module.INPUTS.get(name)
        try:
            if spec is not None:
                given[name] = spec.parse(raw)
            else:
                given[name] = raw.strip()
        except module.RuleInputError as error:
            raise Usage(str(error), "bad-input") from None
    rolled = _rolled_option(told)
    if rolling and seed is None:
        import secrets

        seed = secrets.randbits(53)  # a JSON integer every reader holds exactly
    try:
        from dsl.calls import resolve_in

        resolution = resolve_in(module, names, given, rounds, seed, rolled)
    except module.RuleInputError as error:
        raise Usage(str(error), "bad-input") from None
    if as_json:
        from dsl.report import json_text

        data = resolution.to_dict()
        if seed is not None:
            from dsl.runtime.base import number_json

            data["seed"] = number_json(seed)
        click.echo(json_text(data))
        return
    from dsl.report import resolution_text

    click.echo(resolution_text(resolution))
    if seed is not None:
        click.echo(f"\nrolled with --seed {seed}")


def _rolled_option(told: tuple[str, ...]) -> dict[str, int | list[int]] | None:
    """`--rolled fall=3,4,2` (faces) and `--rolled fall=9` (a total), by roll name."""
    if not told:
        return None
    found: dict[str, int | list[int]] = {}
    for item in told:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise Usage(f"--rolled takes ROLL=FACES or ROLL=TOTAL (`fall=3,4,2`, `fall=9`), not `{item}`")
        if name in found:
            raise Usage(f"--rolled gives `{name}` twice; tell each roll once", "repeated-input")
        if len(raw) > 100_000:
            raise Usage(f"--rolled {name}: at most 100,000 characters of faces", "bad-input")
        try:
            numbers = [int(part) for part in raw.split(",")] if raw.strip() else []
        except ValueError:
            raise Usage(f"--rolled {name}: faces and totals are whole numbers, not `{raw}`", "bad-input") from None
        if not numbers:
            raise Usage(f"--rolled {name}: give the faces (`3,4,2`) or a total (`9`)", "bad-input")
        found[name] = numbers if "," in raw else numbers[0]
    return found


@main.command(name="test")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("-v", "--verbose", is_flag=True, help="List every example, not only failures.")
@click.option("--jobs", type=int, default=None, help="Processes that check balance claims (default: every core, for large spaces).")
@click.option("--scheduler", metavar="ADDRESS|FILE", help="Check balance claims on a Dask cluster (see `sweep --help`).")
def test_(paths: tuple[Path, ...], verbose: bool, jobs: int | None, scheduler: str | None) -> None:
    """Run the worked examples of rulebooks (default: ./rulebooks), and check their balance
    claims over every situation of their spaces."""
    from dsl.balance.books import BalanceError, edition_of
    from dsl.balance.claims import check_balance, lines
    from dsl.compiler import generate, load_module
    from dsl.runner import run_examples

    files = _paths(paths)
    compiled = [compile_file(p) for p in files]  # examples run apart: rulebook names may repeat
    errors, _ = _report(compiled)
    if errors:
        _fail("fix the errors above before running examples")
    passed = failed = held = broken = 0
    for item in compiled:
        assert item.book is not None
        module = load_module(generate(item), item.book.name)
        outcome = run_examples(item, module)
        for line in outcome.lines(verbose):
            click.echo(line)
        passed += outcome.passed
        failed += outcome.failed
        if item.book.balances:
            edition = edition_of(item, module)
            source = item.text.split("\n")
            for balance in item.book.balances:
                try:
                    result = check_balance(edition, balance, jobs, scheduler=scheduler)
                except BalanceError as error:
                    raise Usage(str(error)) from None
                for line in lines(result, item.path, source, verbose):
                    click.echo(line)
                held += sum(claim.passed for claim in result.claims)
                broken += sum(not claim.passed for claim in result.claims)
    click.echo(f"{passed} example{'s' if passed != 1 else ''} passed, {failed} failed")
    if held or broken:
        click.echo(f"{held} balance claim{'s' if held != 1 else ''} held, {broken} failed")
    sys.exit(1 if failed or broken else 0)


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), default=Path("cards"), show_default=True)
@click.option("--format", "fmt", type=click.Choice(["pdf", "html"]), default="pdf", show_default=True)
@click.option("--layout", type=click.Choice(["cards", "sheet"]), default="cards", show_default=True)
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option(
    "--errata",
    type=click.Choice(["appendix", "card", "none"]),
    default="appendix",
    show_default=True,
    help="Where errata go: an appendix at the end of the deck, on each rule's card, or nowhere.",
)
@click.option("--gutters", is_flag=True, help="Space the cards apart, each with its own bleed (fewer to a page).")
@click.option(
    "--size",
    default="poker",
    show_default=True,
    help="Card format: poker, bridge, tarot, mini, euro, square, or WIDTHxHEIGHT in mm (60x90).",
)
@click.option("--bleed", "bleed_mm", type=float, help="Bleed in mm (default: the format's; 1/8 in for poker).")
@click.option("--safe", "safe_mm", type=float, help="How far text stays inside the trim, in mm (default: the format's).")
@click.option("--shop", help="A print shop's preset (bleed, safe area, page order): drivethrucards.")
@click.option("--duplex/--simplex", default=True, show_default=True, help="A two-face card on one card's two sides, or every face a card.")
@click.option("--back-title", help="The title on the card backs (default: the rulebook's).")
@click.option("--back-colour", default="#243b55", show_default=True, help="The colour of the card backs, #RRGGBB.")
@click.option("--back-image", type=click.Path(path_type=Path, exists=True, dir_okay=False), help="An image on the card backs.")
@click.option("--pad", type=click.IntRange(1, 1000), help="Add blank note cards up to a multiple of this deck size.")
@click.option("--only", multiple=True, help="Only these rules, tables or categories (repeat the option).")
@click.option("--large-type", "large", is_flag=True, help="Every size of type 25% larger (cards take more faces).")
@click.option("--images", is_flag=True, help="Also one PNG per face at 300 dpi, with bleed (needs the `print` extra).")
@click.option("--tts", is_flag=True, help="Also Tabletop Simulator deck sheets and back image (needs the `print` extra).")
def cards(
    paths: tuple[Path, ...],
    output: Path,
    fmt: str,
    layout: str,
    paper: str,
    errata: str,
    gutters: bool,
    size: str,
    bleed_mm: float | None,
    safe_mm: float | None,
    shop: str | None,
    duplex: bool,
    back_title: str | None,
    back_colour: str,
    back_image: Path | None,
    pad: int | None,
    only: tuple[str, ...],
    large: bool,
    images: bool,
    tts: bool,
) -> None:
    """Print-ready reference cards (or a quick-reference sheet) for rulebooks.

    PATHS are rulebook files or folders, or names of bundled rulebooks.  Every book is rendered
    before anything is written: if one fails, nothing is.  docs/cards.md describes the formats,
    the press file (PDF/X-1a, CMYK) and the shops' presets.
    """
    from dsl.cards import card_set, write_cards
    from dsl.outdir import OutputError

    files = _paths(tuple(_bundled_or_path(path) for path in paths))
    _output_dir(output)
    compiled = _compile_all(files)
    errors, _ = _report(compiled)
    if errors:
        _fail("nothing was written")
    from dsl.cards import Back, PrintOptions
    from dsl.cards.blocks import CardsError
    from dsl.cards.formats import SHOPS, card_format

    try:
        card = card_format(size, bleed_mm=bleed_mm, safe_mm=safe_mm, shop=shop)
    except CardsError as error:
        raise Usage(str(error)) from None
    rendered: dict[str, bytes] = {}
    for item in compiled:
        assert item.book is not None
        back = Back(back_title or item.book.title, back_colour, back_image)
        options = PrintOptions(
            card=card,
            back=back,
            duplex=duplex,
            back_first=shop is not None and SHOPS[shop].back_first,
            pad=pad,
            only=only or None,
            large=large,
            images=images,
            tts=tts,
        )
        try:
            rendered.update(
                card_set(item.book, fmt=fmt, layout=layout, paper=paper, errata=errata, gutters=gutters, options=options)
            )
        except CardsError as error:
            raise Usage(str(error)) from None
    try:
        written = write_cards(rendered, output, waiting=lambda: _waiting(output))
    except OutputError as error:
        raise Usage(str(error)) from None
    except OSError as error:
        raise _unwritable(output, error) from None
    for path in written:
        click.echo(str(path))


@main.command()
@click.argument("book")
@click.option("--serve", is_flag=True, help="Also serve a live preview page (cards and a playground) on 127.0.0.1.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="The preview's port (0: any free one).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    default=DEFAULT_OUTPUT,
    show_default=True,
    help="Directory for BOOK's resolver module (cards go to OUTPUT/cards); other files there are left alone.",
)
@click.option("--cards/--no-cards", default=True, show_default=True, help="Also rebuild reference cards and sheets.")
def watch(book: str, serve: bool, port: int, output: Path, cards: bool) -> None:
    """Rebuild BOOK on every save, and print a summary: diagnostics, examples, files written.

    A save with errors keeps the last good build.  Needs the `workbench` extra.  Ctrl-C stops.
    """
    from dsl.workbench.commands import watch_command

    watch_command(_book_path(book), _output_dir(output), serve=serve, port=port, cards=cards)


@main.command()
def lsp() -> None:
    """Run the language server over stdio, for editors (needs the `workbench` extra)."""
    from dsl.workbench.commands import lsp_command

    lsp_command()


@main.command()
@click.argument("name", type=click.Choice(["resolution", "rulebook", "list", "describe", "diff", "error"]))
def schema(name: str) -> None:
    """Print the JSON Schema (2020-12) of `resolve --json` (resolution), of `export` (rulebook), of
    `list`, `describe` or `diff` with `--json`, or of what a command run with `--json` prints when
    it fails (error)."""
    from dsl.contract import schema_text

    click.echo(schema_text(name), nl=False)


@main.command()
@click.argument("book")
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write to FILE, not stdout.")
def export(book: str, output: Path | None) -> None:
    """Print BOOK, checked, as JSON: its vocabulary, rules, tables with rows, rolls with their
    exact distributions (the schema is `rulecraft schema rulebook`)."""
    from dsl.editing import write_text_atomically
    from dsl.export import export_book
    from dsl.report import json_text

    compiled = _book(book)
    assert compiled.book is not None
    text = json_text(export_book(compiled.book)) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    write_text_atomically(output, text)
    click.echo(f"exported {compiled.book.name} to {output}")


@main.command()
@click.argument("old")
@click.argument("new")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def diff(old: str, new: str, as_json: bool) -> None:
    """What changed from OLD to NEW (two editions of a rulebook), rule by rule: added and removed
    rules, rows and inputs, changed lines, and changed values and chances at the defaults."""
    from dsl.compiler import generate, load_module
    from dsl.contract import diff_books, diff_lines
    from dsl.report import json_text, visible

    before, after = _book(old), _book(new)
    assert before.book is not None and after.book is not None
    data = diff_books(
        before.book,
        after.book,
        load_module(generate(before), before.book.name),
        load_module(generate(after), after.book.name),
    )
    if as_json:
        click.echo(json_text(data))
        return
    for line in diff_lines(data):
        click.echo(visible(line))


if __name__ == "__main__":  # pragma: no cover
    main()
