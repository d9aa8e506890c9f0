"""Plain-text tables and text for the instructor's terminal.

Whatever a submission wrote (a flag's detail, a reason quoting its output, a name) is untrusted: printed
raw, an escape sequence could rewrite the instructor's terminal (move the cursor, hide lines, set the
window title). `visible` shows every control and format character as its escape instead (issue 51); the
commands that print submissions' text (grade, status, report, feedback) write through `VisibleText`.
"""
from __future__ import annotations

import unicodedata
from typing import TextIO

KEEP = frozenset("\n")
SHOWN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})     # controls, formats, odd code points, line breaks


def visible(text: str) -> str:
    """`text` with every control or format character (ESC, BEL, CR, bidi overrides...) shown as its escape."""
    if text.isprintable():
        return text
    return "".join(c if c in KEEP or unicodedata.category(c) not in SHOWN
                   else c.encode("unicode_escape").decode("ascii") for c in text)


class VisibleText:
    """A text stream that writes through `visible`: sys.stdout and sys.stderr of the commands above."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(visible(text))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)       # flush, fileno, isatty, encoding...


def table(header: list[str], rows: list[list[object]]) -> str:
    cells = [[visible(str(c)) for c in header]] + [[visible(str(c)) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
