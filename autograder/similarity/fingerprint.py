"""Token fingerprints of Python code, as MOSS makes them (Schleimer, Wilkerson and Aiken, "Winnowing:
local algorithms for document fingerprinting", SIGMOD 2003), on Python tokens instead of characters.

Names a student may choose (variables, functions, parameters) become one token, literals another, so
renaming, new comments, blank lines and re-indented whitespace change nothing; keywords, operators,
builtins and attribute names (`.argmax`, an API the student cannot rename) are kept, since they carry
most of what tells two honest solutions apart. Every k-gram of tokens is hashed, and winnowing keeps the
smallest hash of each window of w k-grams: any shared run of at least k + w - 1 tokens leaves a shared
fingerprint, and a document keeps about 2 / (w + 1) of its k-grams.
"""
from __future__ import annotations

import builtins
import io
import keyword
import tokenize
import zlib
from dataclasses import dataclass

K = 12                  # tokens per k-gram: shorter runs (one normalised statement) are common by chance
W = 8                   # winnowing window: a shared run of K + W - 1 = 19 tokens is always found
MAX_CELL_CHARS = 200_000   # a cell past this is cut: fingerprints of its start are enough to compare
BUILTINS = frozenset(dir(builtins))
SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
FIXED = {tokenize.NUMBER: "0", tokenize.STRING: "S", tokenize.NEWLINE: ";", tokenize.INDENT: "{", tokenize.DEDENT: "}"}
FSTRING_START = getattr(tokenize, "FSTRING_START", None)     # Python 3.12 splits f-strings into pieces
FSTRING_END = getattr(tokenize, "FSTRING_END", None)


@dataclass(frozen=True)
class Token:
    text: str           # the normalised token
    line: int           # first and last line of the original token in its cell (1-based)
    end: int


def _magic_free(source: str) -> str:
    """IPython magics and shell lines (`%%time`, `!pip`) blanked, keeping every line's number."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.split("\n"))


def _normal(tok: tokenize.TokenInfo, previous: str) -> str:
    if tok.type == tokenize.NAME:
        if keyword.iskeyword(tok.string) or tok.string in BUILTINS:
            return tok.string
        return "." + tok.string if previous == "." else "N"
    return FIXED.get(tok.type, tok.string)


def tokens(source: str) -> list[Token]:
    """The normalised tokens of one cell; code that does not tokenize keeps the tokens before the error."""
    found: list[Token] = []
    depth = 0                                   # inside an f-string (3.12+): its pieces are one literal
    stream = tokenize.generate_tokens(io.StringIO(_magic_free(source[:MAX_CELL_CHARS])).readline)
    try:
        for tok in stream:
            if tok.type in SKIP:
                continue
            if FSTRING_START is not None and tok.type in (FSTRING_START, FSTRING_END):
                depth += 1 if tok.type == FSTRING_START else -1
                if tok.type == FSTRING_START and depth == 1:
                    found.append(Token("S", tok.start[0], tok.end[0]))
                continue
            if depth:
                continue
            text = _normal(tok, found[-1].text if found else "")
            found.append(Token(text, tok.start[0], tok.end[0]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    # `.name` already carries its dot: drop the separate "." token before it
    return [t for i, t in enumerate(found) if not (t.text == "." and i + 1 < len(found)
                                                    and found[i + 1].text.startswith("."))]


def kgram_hashes(texts: list[str], k: int = K) -> list[int]:
    """Hash of every k-gram, the same in every run: str's hash is salted per process (PYTHONHASHSEED),
    which would pick other fingerprints each time; a tuple of CRCs hashes the same everywhere."""
    ids = [zlib.crc32(t.encode()) for t in texts]
    return [hash(tuple(ids[i:i + k])) for i in range(len(ids) - k + 1)]


def winnow(hashes: list[int], w: int = W) -> list[int]:
    """Positions of the fingerprints: the rightmost smallest hash of each window of w, each kept once."""
    if not hashes:
        return []
    if len(hashes) <= w:
        low = min(hashes)
        return [max(i for i, h in enumerate(hashes) if h == low)]
    picked: list[int] = []
    for start in range(len(hashes) - w + 1):
        window = hashes[start:start + w]
        low = min(window)
        pos = start + w - 1 - window[::-1].index(low)
        if not picked or picked[-1] != pos:
            picked.append(pos)
    return picked
