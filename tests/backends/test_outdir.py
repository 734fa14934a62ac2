"""OUTPUT belongs partly to the user: a build writes and removes only its own files, through
symbolic links never, and changes them all at once even when it is stopped half-way.

The reproducers of the reliability report each have a test here (named in its docstring); the
soak script tests/soak/kill_builds.py kills real builds at random points, a few rounds of it run
here."""

from __future__ import annotations

import errno
import fcntl
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from dsl import outdir
from dsl.build import build_outputs, write_outputs
from dsl.cli import main
from dsl.compiler import compile_file
from tests.soak import kill_builds
from tests.soak.kill_builds import USER_FILES, snapshot, temporaries


def _run(*args: str) -> Result:
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(main, list(args))
    assert "Traceback" not in result.stdout + result.stderr
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), result.exception
    return result


def _books(tmp: Path, version: str) -> Path:
    folder = tmp / version
    folder.mkdir(exist_ok=True)
    for name, text in kill_builds.VERSIONS[version].items():
        (folder / f"{name}.rules").write_text(text, encoding="utf-8")
    return folder


def _outputs(tmp: Path, version: str, *, cards: bool = False) -> dict[str, bytes]:
    compiled = [compile_file(path) for path in sorted(_books(tmp, version).glob("*.rules"))]
    return build_outputs(compiled, tmp / "out", cards=cards)


def _ours(folder: Path) -> dict[str, bytes]:
    return {k: v for k, v in snapshot(folder).items() if k not in USER_FILES}


def _with_user_files(folder: Path) -> None:
    for relative, data in USER_FILES.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(data)


def _user_files_intact(folder: Path) -> None:
    files = snapshot(folder)
    for relative, data in USER_FILES.items():
        assert files.get(relative) == data, relative


# ---------------------------------------------------------------------------- ownership


def test_user_files_under_cards_survive_every_build(tmp_path: Path) -> None:
    """build_deletes_user_files_in_cards.sh: files under OUTPUT/cards that rulecraft did not write
    were all deleted, even with --no-cards, and the summary said "-2 unchanged"."""
    book = _books(tmp_path, "v1") / "alpha.rules"
    out = tmp_path / "out"
    (out / "cards" / "mine").mkdir(parents=True)
    (out / "cards" / "notes.txt").write_text("notes\n")
    (out / "cards" / "mine" / "plan.md").write_text("plan\n")
    first = _run("build", str(book), "-o", str(out), "--no-cards")
    assert first.exit_code == 0, first.stderr
    assert "2 file(s) changed, 0 unchanged" in first.stderr
    with_cards = _run("build", str(book), "-o", str(out))
    assert "7 file(s) changed, 2 unchanged" in with_cards.stderr
    again = _run("build", str(book), "-o", str(out), "--no-cards")
    assert "0 file(s) changed, 2 unchanged" in again.stderr
    for result in (first, with_cards, again):
        assert "-" not in result.stderr.split("changed, ")[1]
    assert (out / "cards" / "notes.txt").read_text() == "notes\n"
    assert (out / "cards" / "mine" / "plan.md").read_text() == "plan\n"
    assert len(list((out / "cards").glob("alpha*"))) == 7  # --no-cards leaves the cards alone


def test_a_symbolic_link_to_cards_is_never_followed(tmp_path: Path) -> None:
    """build_deletes_user_files_in_cards.sh: through a symlinked OUTPUT/cards, files outside
    OUTPUT were deleted."""
    book = _books(tmp_path, "v1") / "alpha.rules"
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "important.doc").write_text("precious\n")
    (victim / "sub" / "thesis.tex").write_text("thesis\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "cards").symlink_to(victim)
    assert _run("build", str(book), "-o", str(out), "--no-cards").exit_code == 0
    refused = _run("build", str(book), "-o", str(out))
    assert refused.exit_code == 2
    assert f"`{out / 'cards'}` is a symbolic link: rulecraft writes only inside `{out}`" in refused.stderr
    assert sorted(p.name for p in victim.rglob("*")) == ["important.doc", "sub", "thesis.tex"]
    assert set(snapshot(out)) == {"alpha.py", "__init__.py", "cards", outdir.MANIFEST}


def test_a_symbolic_link_where_a_file_goes_is_refused(tmp_path: Path) -> None:
    book = _books(tmp_path, "v1") / "alpha.rules"
    elsewhere = tmp_path / "elsewhere.py"
    elsewhere.write_text("mine = 1\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "alpha.py").symlink_to(elsewhere)
    result = _run("build", str(book), "-o", str(out), "--no-cards")
    assert result.exit_code == 2
    assert f"`{out / 'alpha.py'}` is a symbolic link, where rulecraft would write a file" in result.stderr
    assert (out / "alpha.py").is_symlink() and elsewhere.read_text() == "mine = 1\n"
    assert sorted(p.name for p in out.iterdir()) == ["alpha.py"]


def test_a_hand_written_module_is_never_overwritten_or_removed(tmp_path: Path) -> None:
    """build_deletes_user_files_in_cards.sh: a hand-written .py whose first lines mention
    rulecraft was deleted as an orphan."""
    book = _books(tmp_path, "v1") / "alpha.rules"
    out = tmp_path / "out"
    out.mkdir()
    helper = b'"""Helpers for the code generated by rulecraft; do not edit the generated files."""\n'
    (out / "helper.py").write_bytes(helper)
    assert _run("build", str(book), "-o", str(out), "--no-cards").exit_code == 0
    assert (out / "helper.py").read_bytes() == helper
    mine = b'"""alpha: my own module, generated by rulecraft once, then edited."""\n'
    (out / "alpha.py").write_bytes(mine)
    (out / outdir.MANIFEST).unlink()  # no record: only the file itself could say it is rulecraft's
    result = _run("build", str(book), "-o", str(out), "--no-cards")
    assert result.exit_code == 2
    assert f"`{out / 'alpha.py'}` was not written by rulecraft" in result.stderr
    assert (out / "alpha.py").read_bytes() == mine


def test_a_file_no_rulebook_produces_is_removed_only_as_rulecraft_wrote_it(tmp_path: Path) -> None:
    v1, v2 = _books(tmp_path, "v1"), _books(tmp_path, "v2")
    out = tmp_path / "out"
    assert _run("build", str(v1), "-o", str(out)).exit_code == 0
    moved = _run("build", str(v2), "-o", str(out))
    assert moved.exit_code == 0, moved.stderr
    assert "17 file(s) changed, 0 unchanged, 8 removed" in moved.stderr
    assert not list(out.rglob("beta*"))
    assert _run("build", str(v1), "-o", str(out)).exit_code == 0
    (out / "cards" / "beta.html").write_text("edited by hand\n")
    kept = _run("build", str(v2), "-o", str(out))
    assert f"note: kept `{out / 'cards' / 'beta.html'}`: no rulebook produces it any more" in kept.stderr
    assert (out / "cards" / "beta.html").read_text() == "edited by hand\n"
    assert _run("build", str(v2), "-o", str(out), "--check").exit_code == 0  # no longer rulecraft's


def test_an_output_built_before_manifests_is_adopted(tmp_path: Path) -> None:
    """The committed generated/ and older builds have no manifest: files identical to what a
    build writes, or marked as generated, are adopted; others that look generated stay."""
    v1, v2 = _books(tmp_path, "v1"), _books(tmp_path, "v2")
    out = tmp_path / "out"
    assert _run("build", str(v1), "-o", str(out)).exit_code == 0
    (out / outdir.MANIFEST).unlink()
    stale = _run("build", str(v1), "-o", str(out), "--check")
    assert stale.exit_code == 1
    assert f"stale: {out / outdir.MANIFEST} is missing" in stale.stderr
    moved = _run("build", str(v2), "-o", str(out))
    assert moved.exit_code == 0, moved.stderr
    assert f"note: kept `{out / 'beta.py'}`: it looks generated, but no rulebook produces it" in moved.stderr
    assert (out / "beta.py").exists() and (out / "cards" / "beta-cards-a4.pdf").exists()
    assert set(outdir.read_manifest(out) or ()) == set(_ours(tmp_path / "out")) - {
        outdir.MANIFEST,
        *(k for k in _ours(out) if "beta" in k),
    }
    assert _run("build", str(v2), "-o", str(out), "--check").exit_code == 0


def test_the_manifest_cannot_send_a_removal_outside_output(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    out = tmp_path / "out"
    out.mkdir()
    forged = {"../victim.txt": outdir.digest(b"precious\n"), "/etc/hostname": "0" * 64}
    (out / outdir.MANIFEST).write_bytes(outdir.manifest_bytes(forged))
    assert outdir.read_manifest(out) == {}
    write_outputs(_outputs(tmp_path, "v1"), out)
    assert victim.read_bytes() == b"precious\n"


def test_a_manifest_that_lists_itself_does_not_own_itself(tmp_path: Path) -> None:
    """A manifest edited to list `.rulecraft.manifest.json` among the outputs made the next build
    note "kept `.rulecraft.manifest.json`: ... it changed since rulecraft wrote it": rulecraft's
    own records are never outputs, whatever a manifest lists."""
    v1 = _books(tmp_path, "v1")
    out = tmp_path / "out"
    assert _run("build", str(v1), "-o", str(out)).exit_code == 0
    listed = outdir.read_manifest(out)
    assert listed is not None and outdir.MANIFEST not in listed
    forged = {**listed, outdir.MANIFEST: "0" * 64, outdir.JOURNAL: "0" * 64, "cards/.rulecraft-staging/x": "0" * 64}
    (out / outdir.MANIFEST).write_bytes(outdir.manifest_bytes(forged))
    assert outdir.read_manifest(out) == listed
    result = _run("build", str(v1), "-o", str(out))
    assert result.exit_code == 0
    assert "kept" not in result.stderr + result.stdout and outdir.MANIFEST not in result.stderr
    assert outdir.read_manifest(out) == listed
    assert (out / outdir.MANIFEST).read_bytes() == outdir.manifest_bytes(listed)


def test_a_file_where_the_cards_folder_goes_is_named_as_not_a_directory(tmp_path: Path) -> None:
    """`build -o b2` with `b2/cards` an empty regular file said "`b2/cards` is not a regular file"."""
    v1 = _books(tmp_path, "v1")
    out = tmp_path / "b2"
    out.mkdir()
    (out / "cards").write_bytes(b"")
    result = _run("build", str(v1), "-o", str(out))
    assert result.exit_code == 2
    assert f"`{out / 'cards'}` is a file, not a directory: rulecraft writes `{out / 'cards'}/" in result.stderr
    assert "not a regular file" not in result.stderr
    assert sorted(os.listdir(out)) == ["cards"]


# ---------------------------------------------------------------------------- all or nothing


def test_a_target_that_cannot_be_replaced_changes_nothing(tmp_path: Path) -> None:
    """half_updated_on_failed_rename.sh: a directory where a card goes made the rename loop fail
    half-way: PDFs new, the module old, staged .rulecraft-* files left."""
    v1, v2 = _books(tmp_path, "v1"), _books(tmp_path, "v2")
    out = tmp_path / "out"
    assert _run("build", str(v1), "-o", str(out)).exit_code == 0
    (out / "cards" / "alpha.html").unlink()
    (out / "cards" / "alpha.html").mkdir()
    before = snapshot(out)
    result = _run("build", str(v2), "-o", str(out))
    assert result.exit_code == 2
    assert f"`{out / 'cards' / 'alpha.html'}` is a directory, where rulecraft would write a file" in result.stderr
    assert snapshot(out) == before and not temporaries(out)


def _failing(name: str, at: int, error: BaseException) -> Callable[..., object]:
    real = getattr(os, name)
    calls = [0]

    def call(*args: object, **kwargs: object) -> object:
        calls[0] += 1
        if calls[0] == at:
            raise error
        return real(*args, **kwargs)

    return call


@pytest.mark.parametrize("error", [OSError(errno.EIO, "I/O error"), KeyboardInterrupt()], ids=["EIO", "Ctrl-C"])
def test_a_failure_at_any_step_of_the_swap_leaves_the_old_build_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    """sigint_during_rename.py: a Ctrl-C at the 4th rename left 10 files new, 247 old and 247
    staged; here every rename, link and write of the swap fails in turn (an error, or a
    KeyboardInterrupt raised where the code is, as a signal handler would)."""
    old, new = _outputs(tmp_path, "v1", cards=True), _outputs(tmp_path, "v2", cards=True)
    reference = tmp_path / "reference"
    write_outputs(old, reference)
    _with_user_files(reference)
    expected = _ours(reference)
    write_outputs(new, tmp_path / "finished")
    finished = _ours(tmp_path / "finished")
    steps = 0
    for name in ("replace", "link", "rename", "write", "mkdir", "fsync"):
        for at in range(1, 60):
            out = tmp_path / f"out-{name}-{at}"
            shutil.copytree(reference, out, symlinks=True)
            with monkeypatch.context() as patch:
                patch.setattr(os, name, _failing(name, at, error))
                try:
                    write_outputs(new, out)
                except (OSError, KeyboardInterrupt):
                    steps += 1
                else:
                    break  # fewer calls than `at`: every step of this kind was tried
            where = f"os.{name} failing at call {at}"
            if temporaries(out):  # it failed after the swap, while cleaning up: the next run does that
                with outdir.locked(out):
                    outdir.recover(out)
                assert _ours(out) == finished, f"{where} left the new build unfinished"
            else:
                assert _ours(out) == expected, f"{where} left a mixed output"
            assert not temporaries(out), f"{where} left {temporaries(out)}"
            _user_files_intact(out)
    assert steps > 50


@pytest.mark.slow
def test_an_interrupted_swap_is_finished_by_the_next_build_or_check(tmp_path: Path) -> None:
    """A build killed (SIGKILL) after the commit point, at a chosen rename: the journal lets the
    next `build --check` finish the swap; nothing is mixed and nothing staged is left.  A kill
    test: in CI (`--slow`)."""
    v2 = _books(tmp_path, "v2")
    old, new = _outputs(tmp_path, "v1", cards=True), _outputs(tmp_path, "v2", cards=True)
    new_files = tmp_path / "new"
    write_outputs(new, new_files)
    wanted = snapshot(new_files)
    write_outputs(old, tmp_path / "old")
    mixed = 0
    for at in (2, 10, 19):  # the journal is put in place by the first os.replace, then 18 files
        out = tmp_path / f"out-{at}"
        write_outputs(old, out)
        _with_user_files(out)
        script = textwrap.dedent(
            f"""
            import os, signal, sys
            from pathlib import Path
            from dsl.build import build_outputs, write_outputs
            from dsl.compiler import compile_file
            outputs = build_outputs([compile_file(p) for p in sorted(Path({str(v2)!r}).glob("*.rules"))],
                                    Path("."), cards=True)
            real, calls = os.replace, [0]
            def replace(*args, **kwargs):
                if Path(args[1]).name == ".rulecraft-journal.json" or calls[0]:
                    calls[0] += 1
                if calls[0] == {at}:
                    os.kill(os.getpid(), signal.SIGKILL)
                real(*args, **kwargs)
            os.replace = replace
            write_outputs(outputs, Path({str(out)!r}))
            """
        )
        killed = subprocess.run([sys.executable, "-c", script], capture_output=True, check=False)
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert (out / outdir.JOURNAL).exists()
        mixed += _ours(out) != wanted and {k: v for k, v in _ours(out).items() if "rulecraft" not in k} != {
            k: v for k, v in snapshot(tmp_path / "old").items() if "rulecraft" not in k
        }
        result = _run("build", str(v2), "-o", str(out), "--check")
        assert "finished a build of" not in result.stderr  # --check reports only what is stale
        assert result.exit_code == 0, result.stderr
        assert _ours(out) == wanted and not temporaries(out)
        _user_files_intact(out)
    assert mixed >= 1  # a kill did land half-way through the swap


def test_a_journal_that_leaves_output_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / outdir.STAGING).mkdir()
    journal = '{"format": 1, "folders": [], "moves": [{"path": "../x", "staged": "0.new", "backup": null, "sha256": ""}]}'
    (out / outdir.JOURNAL).write_text(journal)
    result = _run("build", str(_books(tmp_path, "v1")), "-o", str(out), "--no-cards")
    assert result.exit_code == 2
    assert "(the journal of an interrupted build) cannot be read (a path leaves the output directory)" in result.stderr


def test_stale_staging_and_old_temporaries_are_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / outdir.STAGING).mkdir(parents=True)
    (out / outdir.STAGING / "3.new").write_bytes(b"half")
    (out / "cards").mkdir()
    (out / ".rulecraft-k2j4_9ab").write_bytes(b"x")  # left by versions before the journal
    (out / "cards" / ".rulecraft-0abc12de.tmp").write_bytes(b"x")
    (out / ".rulecraft-notes").write_bytes(b"not a name rulecraft ever makes: left alone")
    result = _run("build", str(_books(tmp_path, "v1")), "-o", str(out), "--no-cards")
    assert result.exit_code == 0, result.stderr
    assert "removed the staged files of an interrupted build" in result.stderr
    assert "removed 2 temporary file(s)" in result.stderr
    assert temporaries(out) == [".rulecraft-notes"]


# ---------------------------------------------------------------------------- killed builds


@pytest.mark.slow  # kills processes at random moments
def test_builds_killed_at_random_points_leave_one_version_whole(tmp_path: Path) -> None:
    """Real `rulecraft build` processes sent SIGINT and SIGKILL at random moments after the
    staging directory appears and while files move, and two builds at once: OUTPUT is then one
    version whole, the next run leaves no staging, the user's files and links are unchanged and
    nothing outside OUTPUT changed through the links (see tests/soak/kill_builds.py: the soak runs
    hundreds of rounds, at any moment of a build too)."""
    seed = random.randrange(1 << 30)
    begin = time.perf_counter()
    try:
        soak = kill_builds.run(rounds=4, seed=seed, work=tmp_path, concurrent=1, points=("staging", "swap"))
    except AssertionError as error:
        raise AssertionError(f"seed {seed}: {error}") from None
    print(f"\nseed {seed}\n" + kill_builds.report(soak, time.perf_counter() - begin))
    assert sum(soak.counts.values()) == 5


# ---------------------------------------------------------------------------- lock, permissions


@pytest.fixture
def held(tmp_path: Path) -> Iterator[Path]:
    """An output directory whose lock another process (this one, through its own descriptor)
    holds."""
    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield out
    finally:
        os.close(fd)


def test_a_build_waits_for_another_writing_the_same_output(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    lock = os.open(out, os.O_RDONLY)
    fcntl.flock(lock, fcntl.LOCK_EX)  # as another build does while it writes
    command = [sys.executable, "-m", "dsl.cli", "build", str(_books(tmp_path, "v1")), "-o", str(out), "--no-cards"]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    try:
        said = process.stderr.readline()  # the first thing it says, once it has compiled
        time.sleep(0.5)
        assert process.poll() is None and not (out / "alpha.py").exists()
    finally:
        os.close(lock)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 0, said + err
    assert said == f"waiting for another rulecraft process writing to {out} ...\n"
    assert (out / "alpha.py").exists()


def test_a_build_gives_up_on_a_locked_output_with_a_clear_message(
    held: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outdir, "LOCK_WAIT", 0.3)
    result = _run("build", str(_books(tmp_path, "v1")), "-o", str(held), "--no-cards")
    assert result.exit_code == 2
    assert f"`{held}` is being written by another rulecraft process (waited 0.3 s)" in result.stderr
    assert list(held.iterdir()) == []


def test_a_read_only_output_is_a_usage_error_and_loses_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    v1, v2 = _books(tmp_path, "v1"), _books(tmp_path, "v2")
    out = tmp_path / "out"
    assert _run("build", str(v1), "-o", str(out), "--no-cards").exit_code == 0
    before = snapshot(out)
    real_mkdir = os.mkdir

    def read_only(path: object, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(os, "mkdir", read_only)
    result = _run("build", str(v2), "-o", str(out), "--no-cards")
    monkeypatch.setattr(os, "mkdir", real_mkdir)
    assert result.exit_code == 2
    assert f"cannot write to `{out}` ({out / outdir.STAGING}): Read-only file system" in result.stderr
    assert snapshot(out) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_directory_without_write_permission_is_a_usage_error(tmp_path: Path) -> None:
    v1, v2 = _books(tmp_path, "v1"), _books(tmp_path, "v2")
    out = tmp_path / "out"
    assert _run("build", str(v1), "-o", str(out)).exit_code == 0
    before = snapshot(out)
    for folder in (out, out / "cards"):
        folder.chmod(0o555)
    try:
        result = _run("build", str(v2), "-o", str(out))
    finally:
        for folder in (out, out / "cards"):
            folder.chmod(0o755)
    assert result.exit_code == 2
    assert "Permission denied" in result.stderr
    assert snapshot(out) == before


def test_a_folder_that_cannot_take_a_file_stops_the_build_before_the_swap(tmp_path: Path) -> None:
    v1, v2 = _books(tmp_path, "v1"), _books(tmp_path, "v2")
    out = tmp_path / "out"
    assert _run("build", str(v1), "-o", str(out)).exit_code == 0
    before = snapshot(out)
    real_open = os.open

    def no_room_in_cards(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(str(path)) == out / "cards" / outdir.PROBE:
            raise OSError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    os.open = no_room_in_cards
    try:
        result = _run("build", str(v2), "-o", str(out))
    finally:
        os.open = real_open
    assert result.exit_code == 2
    assert f"({out / 'cards' / outdir.PROBE}): Permission denied" in result.stderr
    assert snapshot(out) == before and not temporaries(out)


# ---------------------------------------------------------------------------- cards


def test_cards_of_several_books_are_written_all_or_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """cards_partial_output.sh: `cards A B` wrote A's PDFs when B failed."""
    import dsl.cards as cards

    books = _books(tmp_path, "v1")
    real = cards.card_set

    def failing(book: object, **options: str) -> dict[str, bytes]:
        if getattr(book, "name", "") == "beta":
            raise RuntimeError("beta cannot be drawn")
        return real(book, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(cards, "card_set", failing)
    result = _run("cards", str(books / "alpha.rules"), str(books / "beta.rules"), "-o", str(tmp_path / "cards"))
    assert result.exit_code == 1
    assert not (tmp_path / "cards").exists()


def test_cards_never_overwrite_a_file_they_did_not_write(tmp_path: Path) -> None:
    book = _books(tmp_path, "v1") / "alpha.rules"
    out = tmp_path / "cards"
    out.mkdir()
    (out / "alpha-cards-a4.pdf").write_bytes(b"%PDF-1.4 the user's own\n")
    result = _run("cards", str(book), "-o", str(out))
    assert result.exit_code == 2
    assert "was not written by rulecraft" in result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["alpha-cards-a4.pdf"]
    (out / "alpha-cards-a4.pdf").unlink()
    assert _run("cards", str(book), "-o", str(out)).exit_code == 0
    assert _run("cards", str(book), "-o", str(out), "--layout", "sheet").exit_code == 0
    assert sorted(p.name for p in out.iterdir()) == [
        outdir.MANIFEST,
        "alpha-cards-a4.pdf",
        "alpha-cards-press.pdf",
        "alpha-sheet-a4.pdf",
    ]
