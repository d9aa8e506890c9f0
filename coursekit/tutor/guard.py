"""The reply path's guard: prose streams through as it comes; code is held until its block ends, then
shown or withheld. The tutor cannot compare a reply with the solution (it never reads it), so it
withholds code that would complete a task, by its shape: a block that defines one of the lab's graded
functions, or more than MAX_NEW_LINES lines of code the learner did not write themselves.
"""
from __future__ import annotations

import re

MAX_NEW_LINES = 2
FENCE = "```"
DEF = re.compile(r"^(def|class|async\s+def)\s")
# said in place of the block, whatever the model wrote before it ("Here is a version:"): the promise was
# the model's, the tutor's rule is that no task code is shown
WITHHELD = ("\n[Code held back: the model offered code for a task here, and the tutor shows hints, not a "
            "task's code. Try the hint, then run check_here() again.]\n")


def _normal(line: str) -> str:
    return re.sub(r"\s+", "", line)


class ReplyGuard:
    def __init__(self, functions: tuple[str, ...] = (), learner_code: str = ""):
        self.defines = re.compile(rf"\bdef\s+({'|'.join(map(re.escape, functions))})\s*\(") if functions else None
        self.own = {_normal(l) for l in learner_code.splitlines() if l.strip()}
        self.line = ""              # the current line, not yet shown
        self.shown = False          # part of the current line was already shown (it is prose)
        self.block: list[str] | None = None   # the code block being held
        self.fenced = False
        self.withheld = 0           # blocks withheld in this reply

    def judge(self, block: list[str]) -> str:
        code = "".join(block)
        new = [l for l in code.splitlines() if l.strip() and not l.strip().startswith(FENCE)
               and not l.strip().startswith("#") and _normal(l) not in self.own]
        if (self.defines and self.defines.search(code)) or len(new) > MAX_NEW_LINES:
            self.withheld += 1
            return WITHHELD
        return code

    def _undecided(self, partial: str) -> bool:
        """Could this start of a line still become the start of a code block?"""
        return any(word.startswith(partial) for word in (FENCE, "def ", "class ", "async ")) or bool(
            DEF.match(partial)) or partial.startswith(FENCE)

    def _line(self, line: str) -> str:
        """A complete line (with its newline): what to show now."""
        if self.block is not None:
            if self.fenced:
                self.block.append(line)
                if line.strip().startswith(FENCE) and len(self.block) > 1:
                    block, self.block = self.block, None
                    return self.judge(block)
                return ""
            if not line.strip() or line[0] in " \t":          # an unfenced def's body goes on
                self.block.append(line)
                return ""
            block, self.block = self.block, None
            return self.judge(block) + self._line(line)
        if line.startswith(FENCE):
            self.block, self.fenced = [line], True
            return ""
        if DEF.match(line):
            self.block, self.fenced = [line], False
            return ""
        return line

    def feed(self, text: str) -> str:
        """Take streamed text; return what may be shown now."""
        out = []
        for piece in re.split(r"(?<=\n)", text):
            if not piece:
                continue
            if self.shown:                                   # the rest of a prose line
                out.append(piece)
                self.shown = not piece.endswith("\n")
                continue
            self.line += piece
            if self.line.endswith("\n"):
                line, self.line = self.line, ""
                out.append(self._line(line))
            elif self.block is None and not self._undecided(self.line):
                out.append(self.line)                        # prose: show it as it comes
                self.line, self.shown = "", True
        return "".join(out)

    def close(self) -> str:
        """The end of the reply: judge what is still held (an unclosed block is judged as it is)."""
        out = self._line(self.line) if self.line else ""
        self.line = ""
        if self.block is not None:
            block, self.block = self.block, None
            out += self.judge(block)
        return out
