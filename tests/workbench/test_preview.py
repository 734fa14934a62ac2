"""The preview page of `rulecraft watch --serve`: its server over real HTTP, and the page in a real
browser, driven as a designer uses it.

The server: a real `rulecraft watch --serve` on a free port, asked with real HTTP requests as a
hostile page or a broken client would ask it (a body of 100 MB, a cross-origin `text/plain` POST,
a lone surrogate in the JSON); each is refused, with a status that says why, before its body is
read.

The page: Debian's chromium, driven by playwright: load the page, pick a rule, set inputs with
the widgets, read the chance shown and compare it with the resolver's exact value; then edit the
rulebook on disk and see the page change, break it and see the diagnostics (and the last good
state kept), fix it again.  Without chromium (CI installs it: see .ci/run) that test is skipped,
saying why.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from dsl.report import percent
from tests.browser import CHROMIUM, LAUNCH_ARGS, in_a_browser, sync_api
from tests.conftest import ROOT, module_from_text
from tests.watching import Watch, save

SCREENSHOTS = "RULECRAFT_SCREENSHOTS"
"""Set to a directory to keep screenshots of the page at each step (to look at them)."""

pytest.importorskip("watchfiles", reason="`rulecraft watch` needs the `workbench` extra (pip install -e '.[test]')")


MARSH = ROOT / "tests" / "fixtures" / "workbench" / "marsh.rules"
TEXT = MARSH.read_text(encoding="utf-8").replace(
    '"Missile weapons are fired from the bank."', '"<b>Missile</b> weapons are fired from the bank."'
)
EDITED = TEXT.replace('DEX -2 in footing "deep water"', 'DEX -4 in footing "deep water"').replace(
    "3d6 <= STR", "3d6 <= STR + 1"
)
TIMEOUT = 30_000
"""Milliseconds to wait for the page to show something (a rebuild takes about a second)."""


def _chance(text: str, rule: str, roll: str, **inputs: object) -> str:
    """The chance of `roll` as the page must show it, from the resolver compiled from `text`."""
    p: Fraction = module_from_text(text).resolve(rule, **inputs).roll(roll).probability
    exact = f"{p.numerator}/{p.denominator}" if p.denominator != 1 else str(p.numerator)
    return f"{exact} ({percent(p)})"


@pytest.fixture
def page(tmp_path: Path) -> Iterator[tuple[Any, Path, Watch]]:
    book = tmp_path / "marsh.rules"
    save(book, TEXT)
    watch = Watch(tmp_path, book.name, "-o", "out", "--serve", "--port", "0")
    url = watch.line(r"serving the preview at (http://127\.0\.0\.1:\d+/)").group(1)
    errors: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 900})
            tab.on("pageerror", lambda error: errors.append(str(error)))
            tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            tab.set_default_timeout(TIMEOUT)
            tab.goto(url)
            yield tab, book, watch
        finally:
            browser.close()
            assert watch.stop() == 0
    assert errors == []


def _shot(tab: Any, name: str) -> None:
    folder = os.environ.get(SCREENSHOTS)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        tab.screenshot(path=str(Path(folder) / f"{name}.png"))


@in_a_browser
def test_the_playground_shows_the_resolvers_chances_and_follows_the_file(page: tuple[Any, Path, Watch]) -> None:
    t, book, _ = page
    expect = sync_api.expect
    expect(t.locator("#book-title")).to_have_text("Marsh Terrain")
    expect(t.locator("#status")).to_contain_text("1 example passed, 0 failed")

    # pick the bog alone
    t.locator('[data-entry="soft_ground"]').uncheck()
    t.locator('[data-entry="bog"]').check()
    sink = t.locator('[data-roll="sink"] .chance.main')
    expect(sink).to_have_text(_chance(TEXT, "bog", "sink"))

    # widgets from the types: a number for STR (with a slider), a checkbox, a select
    assert t.locator("#in-STR").get_attribute("min") == "3"
    assert t.locator("#in-STR").get_attribute("max") == "18"
    assert t.locator("#in-STR-slider").get_attribute("type") == "range"
    t.locator("#in-STR").fill("12")
    expect(sink).to_have_text(_chance(TEXT, "bog", "sink", STR=12))
    assert sink.locator(".exact").inner_text() == "20/27"  # 160 of 216 ways
    expect(t.locator("#in-STR-slider")).to_have_value("12")
    t.locator("#in-swimmer").check()
    expect(sink).to_have_text(_chance(TEXT, "bog", "sink", STR=12, swimmer=True))  # 2d6 <= 12: always
    t.locator("#in-swimmer").uncheck()
    assert sorted(t.locator("#in-water option").all_inner_texts()) == ["ankle", "knee", "waist"]
    t.locator("#in-water").select_option("knee")
    expect(t.locator('[data-stat="DEX"] .value')).to_have_text("8")
    t.locator("#in-weapon").select_option("missile")
    note = t.locator(".notes li").first
    expect(note).to_contain_text("<b>Missile</b> weapons are fired from the bank.")
    assert t.locator(".notes b").count() == 0
    expect(t.frame_locator("#card-frame").locator("h2").first).to_have_text("Bog")
    _shot(t, "1-playground")

    # the designer edits the rulebook: a modifier and the roll change; the page follows
    save(book, EDITED)
    expected = _chance(EDITED, "bog", "sink", STR=12, water="knee", weapon="missile")
    expect(sink).to_have_text(expected)
    assert expected != _chance(TEXT, "bog", "sink", STR=12, water="knee", weapon="missile")
    expect(t.locator('[data-stat="DEX"] .value')).to_have_text("6")
    expect(t.locator("#in-STR")).to_have_value("12")
    expect(t.frame_locator("#card-frame").locator("body")).to_contain_text("DEX \u22124")
    _shot(t, "2-edited")

    # a typo: the diagnostics show; the playground keeps the last good build
    save(book, EDITED.replace("3d6 <= STR + 1", "3d6 <= SRT + 1"))
    problems = t.locator("#problems")
    expect(problems).to_be_visible()
    expect(problems.locator('[data-code="E101"]')).to_contain_text("unknown name `SRT`")
    expect(problems).to_contain_text("hint: did you mean `STR`?")
    expect(t.locator("#status")).to_contain_text("1 error, 0 warnings — showing the last good build")
    t.locator("#in-STR").fill("13")
    expect(sink).to_have_text(_chance(EDITED, "bog", "sink", STR=13, water="knee", weapon="missile"))
    _shot(t, "3-broken")

    save(book, TEXT)
    expect(problems.locator('[data-code="E101"]')).to_have_count(0)
    expect(sink).to_have_text(_chance(TEXT, "bog", "sink", STR=13, water="knee", weapon="missile"))

    # every card of the book, one tab away
    t.locator("#tab-cards").click()
    cards = t.frame_locator("#deck-frame").locator("article.card h2")
    expect(cards).to_have_text(["Marsh Terrain", "Reading these cards", "Index A\u2013Z", "Soft ground", "Bog", "Mishap"])
    assert t.locator("#play").is_hidden()


# ---------------------------------------------------------------------------- the server, over HTTP

HOSTILE = r"""rulebook hostile "T\"\"\" ''' \\ \u202e <script>alert(1)</script>":
    source "s\"); import os; os.system('touch injected') #"

stat v "v\"\"\"": int 0..30 = 10
input exec "x": text = "__import__('os')"
input modifiers "m": one of {held, where, rolls} = held

rule resolve "R\"\"\" \\" cites "c\\":
    v - 1
    when exec == "__import__('os')\"": note "n\"\\\n\"\"\""
    when modifiers == where: v + 2
"""
"""After the reproducer preview_hostile.rules: texts that try to break out of every quoting, and a
text input for the JSON to fill."""

RESOLVE = {"names": ["resolve"], "inputs": {"v": "12"}}


class Preview:
    """A running `rulecraft watch --serve` and plain HTTP requests to it."""

    def __init__(self, watch: Watch, url: str) -> None:
        self.watch = watch
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        self.host, self.port = parts.hostname, parts.port
        self.origin = f"http://{self.host}:{self.port}"

    def ask(
        self, path: str, body: bytes | None = None, headers: dict[str, str] | None = None, method: str = "POST"
    ) -> tuple[int, Any]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=20)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            data = response.read()
        finally:
            connection.close()
        assert response.getheader("X-Content-Type-Options") == "nosniff"
        return response.status, json.loads(data) if data.startswith(b"{") else data

    def resolve(self, payload: object, **headers: str) -> tuple[int, Any]:
        return self.ask("/api/resolve", json.dumps(payload).encode("utf-8"), {"Content-Type": "application/json", **headers})

    def peak_kb(self) -> int | None:
        """The server's peak resident memory (Linux), None where it cannot be read."""
        try:
            status = Path(f"/proc/{self.watch.process.pid}/status").read_text(encoding="ascii")
        except OSError:
            return None
        return next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))


@pytest.fixture(scope="module")
def preview(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Preview]:
    folder = tmp_path_factory.mktemp("preview")
    save(folder / "prev.rules", HOSTILE)
    watch = Watch(folder, "prev.rules", "-o", "out", "--no-cards", "--serve", "--port", "0")
    try:
        url = watch.line(r"serving the preview at (http://127\.0\.0\.1:\d+/)").group(1)
        watch.summary()
        yield Preview(watch, url)
    finally:
        assert watch.stop() == 0


def _response(sock: socket.socket) -> bytes:
    """A whole HTTP response read from a socket: its head, then as many bytes as it says."""
    data = b""
    while b"\r\n\r\n" not in data:
        more = sock.recv(65536)
        assert more, data
        data += more
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        more = sock.recv(65536)
        assert more, data
        body += more
    return head + b"\r\n\r\n" + body


def test_a_large_body_is_refused_before_it_is_read(preview: Preview) -> None:
    """preview_body.sh: a 100 MB POST to /api/resolve took the server from 83 MB to 730 MB, and
    its text came back whole.  A Content-Length over 1 MB is refused (413) at once: the answer
    comes though not a byte of the body is sent."""
    with socket.create_connection((preview.host, preview.port), timeout=20) as sock:
        sock.sendall(
            b"POST /api/resolve HTTP/1.1\r\nHost: %b:%d\r\nContent-Type: application/json\r\n"
            b"Content-Length: 104857600\r\n\r\n" % (preview.host.encode(), preview.port)
        )
        answer = _response(sock)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert answer.endswith(b'\r\n\r\n{"error":"the request is larger than 1024 KB: the preview reads no more"}')
    assert preview.resolve(RESOLVE)[0] == 200


def test_a_large_body_without_a_length_is_refused_as_it_arrives(preview: Preview) -> None:
    """preview_body.sh: a body sent in chunks, with no Content-Length to refuse up front, is
    counted as it is read and refused once past 1 MB, while the client is still sending; the
    server's memory does not grow by what was sent."""
    before = preview.peak_kb()
    chunk = b"A" * 65536
    sent = 0
    with socket.create_connection((preview.host, preview.port), timeout=20) as sock:
        sock.sendall(
            b"POST /api/resolve HTTP/1.1\r\nHost: %b:%d\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" % (preview.host.encode(), preview.port)
        )
        while sent < 64 * 1024 * 1024 and not select.select([sock], [], [], 0)[0]:
            try:
                sock.sendall(b"%x\r\n%b\r\n" % (len(chunk), chunk))
            except OSError:  # the server has answered and closed
                break
            sent += len(chunk)
        answer = _response(sock)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert sent < 16 * 1024 * 1024, f"the server read {sent} bytes before refusing"
    after = preview.peak_kb()
    if before is not None and after is not None:
        assert after - before < 50_000, f"peak memory grew from {before} KB to {after} KB"


@pytest.mark.parametrize(
    ("headers", "status", "says"),
    [
        ({"Content-Type": "text/plain"}, 415, "send JSON with Content-Type: application/json (this request's type: `text/plain`)"),
        ({}, 415, "(this request's type: none)"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, 415, "send JSON"),
        ({"Content-Type": "application/json", "Origin": "http://evil.example"}, 403,
         "requests from `http://evil.example` are refused: the preview answers its own page only"),
        ({"Content-Type": "application/json", "Origin": "null"}, 403, "requests from `null` are refused"),
        ({"Content-Type": "application/json", "Origin": "http://127.0.0.1:1"}, 403, "are refused"),
    ],
)  # fmt: skip
def test_a_request_a_page_elsewhere_could_send_is_refused(
    preview: Preview, headers: dict[str, str], status: int, says: str
) -> None:
    """preview_body.sh: a page in the designer's browser could send a simple text/plain POST to
    the default port; the server took it.  A body must be JSON, said so, and a request that names
    an origin must name the server's own."""
    got, answer = preview.ask("/api/resolve", json.dumps(RESOLVE).encode(), headers)
    assert (got, set(answer)) == (status, {"error"})
    assert says in answer["error"]


def test_the_pages_own_requests_are_answered(preview: Preview) -> None:
    for origin in (preview.origin, f"http://localhost:{preview.port}"):
        status, answer = preview.resolve(RESOLVE, Origin=origin)
        assert status == 200 and answer["resolution"]["stats"]["v"]["start"] == 12
    status, answer = preview.ask(
        "/api/resolve", json.dumps(RESOLVE).encode(), {"Content-Type": "application/json; charset=utf-8"}
    )
    assert status == 200
    status, state = preview.ask("/api/state", method="GET", headers={"Origin": preview.origin})
    assert status == 200 and state["ok"]


def test_a_lone_surrogate_in_a_request_is_an_input_error(preview: Preview) -> None:
    """surrogate.sh: `{"inputs":{"exec":"\\ud800"}}` posted to /api/resolve answered 500 with a
    traceback: it is the resolver's input error, as the CLI prints it; a name holding one too."""
    status, answer = preview.resolve({"names": ["resolve"], "inputs": {"exec": "\ud800"}})
    assert status == 400
    assert answer["error"].startswith('input `exec` must be text, not "\\ud800" (`\\ud800` is no character')
    for payload, says in (
        ({"names": ["\ud800"], "inputs": {}}, "no rule or table `\\ud800`"),
        ({"names": ["resolve"], "inputs": {"\udcff": "1"}}, "no input `\\udcff`"),
        ({"names": ["resolve"], "inputs": {"\udcff": 1}}, "the value of `\\udcff` must be sent as text"),
    ):
        status, answer = preview.resolve(payload)
        assert status == 400 and says in answer["error"], answer


def test_an_error_never_echoes_a_request_at_length(preview: Preview) -> None:
    """preview_body.sh: the text of a request came back whole; an error quotes a clipped part."""
    long_name = "N" * 900_000
    for payload in (
        {"names": [long_name], "inputs": {}},
        {"names": ["resolve"], "inputs": {long_name: "1"}},
        {"names": ["resolve"], "inputs": {long_name: 1}},
        {"names": ["resolve"], "inputs": {"modifiers": long_name}},
    ):
        status, answer = preview.resolve(payload)
        assert status == 400 and len(answer["error"]) < 400, answer["error"][:200]
    status, answer = preview.ask("/api/resolve", b"[" * 500_000, {"Content-Type": "application/json"})
    assert (status, answer) == (400, {"error": "send JSON"})
