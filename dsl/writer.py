"""One writer for generated Python source: layout is managed here, never by string gluing.

Rulebook text reaches generated code only through `literal()` (a Python literal built by
`repr`, so quotes, backslashes, newlines, NUL or bidirectional marks cannot end it) and
`docstring()` (a triple-quoted string only when the text provably cannot break out of it).
"""

from __future__ import annotations


class CodeWriter:
    def __init__(self, indent: str = "    ") -> None:
        self._lines: list[str] = []
        self._level = 0
        self._indent = indent

    def line(self, text: str = "") -> None:
        self._lines.append(self._indent * self._level + text if text else "")

    def lines(self, texts: list[str]) -> None:
        for text in texts:
            self.line(text)

    def blank(self, count: int = 1) -> None:
        for _ in range(count):
            if self._lines and self._lines[-1] == "" and count == 1:
                return
            self._lines.append("")

    def indent(self) -> None:
        self._level += 1

    def dedent(self) -> None:
        if self._level == 0:
            raise RuntimeError("dedent below the left margin")
        self._level -= 1

    def call(self, head: str, args: list[str], tail: str = "", width: int = 99) -> None:
        """`head(arg, ...)tail` on one line when it fits, else one argument per line."""
        one = f"{head}({', '.join(args)}){tail}"
        if len(self._indent * self._level + one) <= width or not args:
            self.line(one)
            return
        self.line(head + "(")
        self.indent()
        for arg in args:
            self.line(arg + ",")
        self.dedent()
        self.line(")" + tail)

    def raw(self, text: str) -> None:
        """Append text exactly as given (the runtime body, which is ordinary reviewed source)."""
        self._lines.extend(text.rstrip("\n").split("\n"))

    def docstring(self, text: str) -> None:
        for line in docstring(text).split("\n"):
            self.line(line)

    def source(self) -> str:
        text = "\n".join(self._lines).rstrip("\n") + "\n"
        return text


def literal(value: object) -> str:
    """A Python literal for a str, int, bool or None coming from a rulebook."""
    if isinstance(value, str):
        # escaped to ASCII: a dash or sign that looks like another (an en dash, a times sign) stays lint-clean
        return ascii(value)
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    raise TypeError(f"not a literal: {type(value).__name__}")


def _safe_docstring(text: str) -> bool:
    if '"""' in text or "\\" in text or text.endswith('"') or text.startswith('"'):
        return False
    return text.isascii() and all(ch == "\n" or (ch.isprintable() and ch != "\t") for ch in text)


def docstring(text: str) -> str:
    """A docstring literal for `text`: triple-quoted when safe, else an escaped repr."""
    text = text.strip("\n")
    if _safe_docstring(text):
        return '"""' + text + ('\n"""' if "\n" in text else '"""')
    return ascii(text)
