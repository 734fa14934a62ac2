"""`rulecraft sweep` and `rulecraft chart`: the balance questions as commands.

Both take BOOK, the RULEs applied in every situation, `--vary` (repeatable: the product of all
is swept), `--set`, `--against` another edition.  A mistake in the request is a usage error
(exit 2) naming what is wrong; a rulebook that does not check prints its diagnostics (exit 1).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from dsl.balance.books import BalanceError, RulebookErrors, load_edition
from dsl.balance.limits import DEFAULT_LIMIT, PARALLEL_FROM, PROGRESS_EVERY, PROGRESS_FROM
from dsl.balance.spec import split_assignment

if TYPE_CHECKING:
    from dsl.balance.sweeps import Sweep
    from dsl.balance.tune import Trial

CHART_FORMATS = {".png": "png", ".svg": "svg", ".html": "html", ".htm": "html"}


class BalanceUsage(click.UsageError):
    """Bad usage of sweep or chart: exit 2 with the message."""


def _options(function: Callable[..., Any]) -> Callable[..., Any]:
    """The options sweep and chart share, in the order `--help` lists them."""
    decorators = [
        click.argument("book"),
        click.argument("rules", nargs=-1),
        click.option(
            "--vary",
            "vary",
            multiple=True,
            metavar="NAME=VALUES",
            help="An input to sweep (repeatable): 3..18, 3..18/3, all, or a,b,c; `rule=` varies the rules "
            "(names, all, terrains, conditions, ...).",
        ),
        click.option(
            "--set", "settings", multiple=True, metavar="NAME=VALUE", help="An input held fixed (repeatable)."
        ),
        click.option("--against", metavar="OTHER", help="Another edition of the book: both, and the difference."),
        click.option(
            "--limit",
            type=int,
            default=DEFAULT_LIMIT,
            show_default=True,
            help="The most situations to sweep; a larger product is refused.",
        ),
        click.option(
            "--jobs",
            type=int,
            default=None,
            help=f"Processes to use (default: every core, for {PARALLEL_FROM:,} situations or more).",
        ),
        click.option(
            "--scheduler",
            metavar="ADDRESS|FILE",
            help="Resolve on a Dask cluster: its scheduler's address (tcp://host:8786) or scheduler file "
            "(needs the `cluster` extra).",
        ),
        click.option(
            "--progress/--no-progress",
            default=None,
            help=f"A progress bar on stderr (default: on a terminal, for {PROGRESS_FROM:,} situations or more).",
        ),
    ]
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


@click.command()
@_options
@click.option("-o", "--output", type=click.Path(path_type=Path), help="File to write (default: standard output).")
@click.option(
    "--format", "fmt", type=click.Choice(["csv", "jsonl", "parquet"]), help="Default: from OUTPUT's suffix, else csv."
)
def sweep(
    book: str,
    rules: tuple[str, ...],
    vary: tuple[str, ...],
    settings: tuple[str, ...],
    against: str | None,
    limit: int,
    jobs: int | None,
    scheduler: str | None,
    progress: bool | None,
    output: Path | None,
    fmt: str | None,
) -> None:
    """Resolve every situation of the product of the --vary inputs; one row each.

    Columns: the varied inputs; stat.NAME (final stats and derived values); roll.NAME (exact
    chance) and roll.NAME.p (float), roll.NAME[TIER] for outcome tiers; table cells and row
    chances; restrictions.  With --against: the same prefixed `against.`, and `diff.` (BOOK - OTHER).
    """
    from dsl.balance.output import stopped_by_signals
    from dsl.balance.writers import format_for, partitioned, write_csv, write_dataset, write_file, write_jsonl

    with _usage(), stopped_by_signals():
        chosen = format_for(output, fmt)
        if chosen == "parquet" and output is None:
            raise BalanceError("Parquet is written to a file: add -o FILE.parquet")
        planned = _plan(book, rules, vary, settings, against, limit)
        # closing: a sweep stopped early stops its worker processes before the command returns
        with (
            _progress(planned, progress, jobs, scheduler) as step,
            closing(planned.chunks(jobs, step, scheduler)) as chunks,
        ):
            if output is None:
                writer = write_csv if chosen == "csv" else write_jsonl
                _to_stdout(lambda: writer(sys.stdout, planned.columns, chunks))
                return
            if partitioned(output, chosen):
                count = write_dataset(output, planned.columns, chunks)
            else:
                count = write_file(output, chosen, planned.columns, chunks)
    click.echo(f"wrote {count:,} rows to {output}", err=True)


@click.command()
@_options
@click.option(
    "-o", "--output", type=click.Path(path_type=Path), required=True, help="The chart: FILE.png, FILE.svg or FILE.html."
)
@click.option("--format", "fmt", type=click.Choice(["png", "svg", "html"]), help="Default: from OUTPUT's suffix.")
@click.option(
    "--roll",
    metavar="NAME",
    help="The roll whose chance is drawn (default: the only one); NAME@RULE if two share a name.",
)
@click.option(
    "--outcome", metavar="TIER", help="Draw the chance of one outcome tier of the roll (critical, special, ...)."
)
@click.option("--stat", metavar="NAME", help="Draw a final stat instead of a chance.")
@click.option("--x", "x", metavar="NAME", help="The varied input along the x axis (default: the first numeric one).")
@click.option("--y", "y", metavar="NAME", help="A second varied input: draws a heatmap of the two.")
@click.option("--title", metavar="TEXT", help="The chart's title (default: what it draws, in the book's words).")
def chart(
    book: str,
    rules: tuple[str, ...],
    vary: tuple[str, ...],
    settings: tuple[str, ...],
    against: str | None,
    limit: int,
    jobs: int | None,
    scheduler: str | None,
    progress: bool | None,
    output: Path,
    fmt: str | None,
    roll: str | None,
    outcome: str | None,
    stat: str | None,
    x: str | None,
    y: str | None,
    title: str | None,
) -> None:
    """Draw a sweep: a roll's chance against one --vary, a line (or bar) per value of the others;
    with --y, a heatmap of two.  Over `--vary rule=...`, only the rules that can call for the
    roll are drawn.  PNG, SVG, or an HTML page with every exact value on hover.
    """
    from dsl.balance.chart import gather, measure_for
    from dsl.balance.page import page
    from dsl.balance.plots import render

    with _usage():
        chosen = fmt or CHART_FORMATS.get(output.suffix.lower())
        if chosen is None:
            raise BalanceError(f"cannot tell the format of `{output}` from its suffix; add --format png, svg or html")
        planned = _plan(book, rules, vary, settings, against, limit)
        measure = measure_for(planned, roll, outcome, stat)
        if measure.roll is not None and any(axis.kind == "rule" for axis in planned.axes):
            planned = _only_calling(planned, measure.roll, rules, vary, settings, limit)
            measure = measure_for(planned, measure.roll, outcome, None)
        with _progress(planned, progress, jobs, scheduler) as step:
            data = gather(planned, measure, x, y, jobs, step, title, scheduler)
        content = page(data).encode("utf-8") if chosen == "html" else render(data, chosen)
        try:
            output.write_bytes(content)
        except OSError as error:
            raise BalanceError(f"cannot write to `{output}`: {error.strerror or error}") from None
    click.echo(f"wrote {output}", err=True)


def _plan(
    book: str, rules: tuple[str, ...], vary: tuple[str, ...], settings: tuple[str, ...], against: str | None, limit: int
) -> Sweep:
    from dsl.balance.sweeps import plan_sweep

    editions = [load_edition(book)]
    if against is not None:
        editions.append(load_edition(against))
    pairs = [split_assignment(text, "--vary") for text in vary]
    fixed = [split_assignment(text, "--set") for text in settings]
    return plan_sweep(editions, rules, vary=pairs, given=fixed, limit=limit)


def _only_calling(
    planned: Sweep, roll: str, rules: tuple[str, ...], vary: tuple[str, ...], settings: tuple[str, ...], limit: int
) -> Sweep:
    from dsl.balance.chart import rules_calling
    from dsl.balance.sweeps import plan_sweep

    axis = next(axis for axis in planned.axes if axis.kind == "rule")
    kept = rules_calling(planned, roll)
    if not kept:
        raise BalanceError(f"none of the rules varied ({', '.join(axis.values)}) can call for the roll `{roll}`")
    left = [name for name in axis.values if name not in kept]
    if not left:
        return planned
    click.echo(f"note: left out, as they never call for the roll `{roll}`: {', '.join(left)}", err=True)
    pairs = [split_assignment(text, "--vary") for text in vary]
    pairs = [(name, ",".join(kept) if name == axis.name else raw) for name, raw in pairs]
    fixed = [split_assignment(text, "--set") for text in settings]
    return plan_sweep(planned.editions, rules, vary=pairs, given=fixed, limit=limit)


def _to_stdout(write: Callable[[], int]) -> None:
    """Write the table to standard output; a reader that stops early (`| head`) ends the sweep
    quietly, as it would end `cat`."""
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout at exit
        sys.exit(1)


@contextmanager
def _usage() -> Iterator[None]:
    """A BalanceError is bad usage (exit 2); a rulebook with errors prints them (exit 1)."""
    try:
        yield
    except BalanceError as error:
        raise BalanceUsage(str(error)) from None
    except RulebookErrors as error:
        click.echo(error.compiled.render(), err=True)
        click.echo(f"error: {error}", err=True)
        sys.exit(1)


@contextmanager
def _progress(
    planned: Sweep, wanted: bool | None, jobs: int | None, scheduler: str | None = None
) -> Iterator[Callable[[int], None] | None]:
    """The size of the sweep on stderr before it starts; then, if wanted, its progress: a bar on a
    terminal, lines in a log."""
    total = planned.total
    processes = planned.processes(jobs)
    where = f"on the Dask cluster at {scheduler}" if scheduler else f"{processes} process{'es' if processes != 1 else ''}"
    label = f"sweeping {total:,} situations ({where})"
    terminal = sys.stderr.isatty()
    if wanted is False or (wanted is None and (not terminal or total < PROGRESS_FROM)):
        click.echo(label, err=True)
        yield None
        return
    if terminal:
        with click.progressbar(length=total, label=label, file=sys.stderr, item_show_func=_rate_text) as bar:
            started = time.monotonic()
            yield lambda count: bar.update(count, _rate(bar.pos + count, started))
        return
    yield _lines(total, label)


def _rate(done: int, started: float) -> float:
    return done / max(time.monotonic() - started, 1e-6)


def _rate_text(rate: float | None) -> str | None:
    return None if rate is None else f"{rate:,.0f} a second"


def _lines(total: int, label: str) -> Callable[[int], None]:
    """Progress as plain lines, for a log: one at each tenth of the sweep, and one at least every
    PROGRESS_EVERY seconds (a tenth of a long sweep can take hours)."""
    click.echo(label, err=True)
    started = time.monotonic()
    done = tenths = 0
    shown = started

    def step(count: int) -> None:
        nonlocal done, tenths, shown
        done += count
        now = time.monotonic()
        tenth = done * 10 // max(total, 1)
        if tenth > tenths or now - shown >= PROGRESS_EVERY:
            tenths, shown = tenth, now
            click.echo(f"  {done:,} of {total:,} situations ({_rate_text(_rate(done, started))})", err=True)

    return step


@click.command()
@click.argument("book")
@click.option(
    "--vary",
    "vary",
    multiple=True,
    required=True,
    metavar="CONSTANT=VALUES",
    help='A constant to try (repeatable: every combination is tried): a modifier\'s label ("bad footing"), '
    "RULE.STAT (that rule's modifiers of STAT) or an input's or stat's default; VALUES: -4..0, 0..2/0.5 or 1,2,5.",
)
@click.option("--jobs", type=int, default=None, help="Processes that check each balance space (default: as sweep).")
def tune(book: str, vary: tuple[str, ...], jobs: int | None) -> None:
    """Find the values of a rulebook's constants that make every balance claim hold.

    Each combination is written into the book, compiled and checked, and every balance block is
    checked over its whole space, exactly.  Prints one row per combination; then the values
    that satisfy every claim, or the closest miss (fewest claims failing, then the smallest
    largest shortfall, then the fewest failing situations) with its failures.  Exit 0 when some
    combination satisfies every claim, 1 when none does.
    """
    from dsl.balance.books import find_rulebook
    from dsl.balance.claims import diagnostics
    from dsl.balance.tune import closest, knobs, run_trials, value_text
    from dsl.compiler import compile_file
    from dsl.diagnostics import render

    with _usage():
        compiled = compile_file(find_rulebook(book))
        if not compiled.ok or compiled.book is None:
            raise RulebookErrors(compiled)
        if not compiled.book.balances:
            raise BalanceError(f"{compiled.path} states no balance block: nothing to tune for")
        varied = knobs(compiled, [split_assignment(text, "--vary") for text in vary])
        claims = sum(len(balance.claims) for balance in compiled.book.balances)
        combinations = 1
        for knob in varied:
            combinations *= len(knob.values)
        click.echo(
            f"tuning {', '.join(knob.name for knob in varied)}: {combinations:,} combination"
            f"{'s' if combinations != 1 else ''} against {claims} balance claim{'s' if claims != 1 else ''}",
            err=True,
        )
        headers = [*(knob.name for knob in varied), "claims held", "failing situations", "largest shortfall"]
        widths = [max(len(header), 6) for header in headers]
        click.echo("  ".join(header.ljust(width) for header, width in zip(headers, widths, strict=True)).rstrip())

        def row(trial: Trial) -> None:
            cells = [value_text(value) for value in trial.values]
            if trial.refused is not None:
                cells.append(f"refused: {trial.refused}")
            else:
                cells += [
                    f"{trial.claims - trial.failing} of {trial.claims}",
                    f"{trial.situations:,}",
                    trial.shortfall_text(),
                ]
            click.echo("  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=False)).rstrip())

        trials = run_trials(compiled, varied, jobs, tried=row)
    names = [knob.name for knob in varied]
    good = [trial for trial in trials if trial.holds]
    if good:
        shown = "; ".join(_assignment(names, trial) for trial in good)
        click.echo(f"every claim holds with: {shown}")
        return
    best = closest(trials)
    if best.refused is not None:
        click.echo("no combination makes the book check; the first refusal is shown above")
        sys.exit(1)
    click.echo(
        f"no combination makes every claim hold; closest miss: {_assignment(names, best)} "
        f"({best.claims - best.failing} of {best.claims} claims held)"
    )
    source = compiled.text.split("\n")
    for result in best.results:
        for diagnostic in diagnostics(result):
            click.echo(render(diagnostic, source))
    sys.exit(1)


def _assignment(names: list[str], trial: Trial) -> str:
    from dsl.balance.tune import value_text

    return ", ".join(f"{name} = {value_text(value)}" for name, value in zip(names, trial.values, strict=True))
