"""Read a number the way a person types it into a quiz, or say why it cannot be read.

The one number reader of the course: the lesson widget (coursekit/quiz/widgets.py), the quiz engine
and the graded-quiz scorer (autograder/quiz/scoring.py) all call `read_number`, so a typed answer is
read the same wherever it is typed. Accepted:
- thousands separators ("36,500", "36 500", "1.234.567") and a decimal comma where it cannot be a
  thousands separator ("0,075", "2,5"); scientific notation ("3.2e9", "3.2 x 10^9"); digits of any
  script ("٧٣٠") and the Arabic decimal separator ("٧٣٠٫٥");
- a currency sign ("$730", "US$ 1.5", "-$5") and the question's units, in any common spelling and
  any part of them ("140 GB", "1,250 per day", "$1,250 a day", "12 percent", "4 milliseconds");
- scale words and suffixes (k, M, bn, T, thousand, million, billion, trillion): "$730k" or "730
  thousand" is 730,000, converted to the question's own scale when its units have one ("thousand
  dollars per year": "$73M" is 73,000 of them, and "73,000 thousand dollars" is 73,000).
A plain number is in the question's units; a percent where the question has no units (a fraction) is
read as that fraction ("39%" is 0.39). Anything else (other units, two numbers, words) is
refused with a message, so a typo is never graded as some other number and never costs a try;
`Reading.how` says how an accepted answer was read.
"""
from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

MAX_CHARS = 100

SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
# Suffixes typed right after a number ("730k", "7B", "$2.5M"), matched exactly where SI units collide
# (m is milli, b could be bits); the words in any case. A unit of the question wins over a suffix
# ("2 B" in bytes per parameter is 2 bytes).
SCALE_SUFFIXES = {"k": 1e3, "K": 1e3, "M": 1e6, "MM": 1e6, "mn": 1e6, "B": 1e9, "bn": 1e9, "Bn": 1e9, "BN": 1e9,
                  "T": 1e12, "tn": 1e12}


def _scale(word: str) -> float:
    lower = word.lower()
    return SCALE_WORDS.get(lower.removesuffix("s"), 0.0) or SCALE_SUFFIXES.get(word, 0.0)


# Spellings of one unit word -> the word compared (after lower case and plural "s" are dropped).
SAME = {"dollar": "$", "usd": "$", "us$": "$", "buck": "$", "/": "per", "a": "per", "an": "per", "each": "per",
        "percent": "%", "pct": "%", "times": "x", "×": "x", "fold": "x",
        "second": "s", "sec": "s", "millisecond": "ms", "msec": "ms", "minute": "min", "hour": "h", "hr": "h",
        "yr": "year", "annum": "year", "d": "day", "gigabyte": "gb", "terabyte": "tb", "megabyte": "mb",
        "kilobyte": "kb", "gibibyte": "gib", "kibibyte": "kib", "tok": "token", "param": "parameter",
        "hrs": "h", "secs": "s", "mins": "min", "yrs": "year", "k": "thousand", "m": "million", "mn": "million",
        "bn": "billion", "b": "byte"}
PER_WORDS = {"daily": ["per", "day"], "yearly": ["per", "year"], "annually": ["per", "year"],
             "hourly": ["per", "h"], "monthly": ["per", "month"], "weekly": ["per", "week"]}


ARABIC_DECIMAL = "\u066b"     # the Arabic decimal separator, read as "."


class UnreadableNumber(ValueError):
    """The text is not a number this parser will guess at; the message says what to type instead."""


@dataclass(frozen=True)
class Reading:
    value: float        # in the question's units
    how: str            # "Read your answer as 730,000 $ per day (730 thousand)."


def _fmt(x: float) -> str:
    return f"{x:,.10g}"


def with_units(number: str, units: str) -> str:
    """A number in the question's units as a reader writes it: "$730,000 per year", "12.5%", "48 GB"."""
    if units.startswith("$"):
        return f"${number}{units[1:]}"
    if units == "%":
        return f"{number}%"
    return f"{number} {units}" if units else number


def _words(text: str) -> list[str]:
    """Unit text as comparable words: "$ per 1M tokens" and "dollars/million token" agree."""
    spaced = re.sub(r"([/$%×])", r" \1 ", text.replace("US$", "$").replace("per cent", "percent"))
    out = []
    for raw in spaced.split():
        word = raw.strip(".,;:()").lower()
        if not word:
            continue
        if word in PER_WORDS:
            out += PER_WORDS[word]
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(SAME.get(word, word))
    return out


def _question_units(units: str) -> tuple[float, str, list[str]]:
    """(scale, scale word, words) of a question's units: "thousand dollars per year" ->
    (1e3, "thousand", ["$", "per", "year"]); "x 10^21 FLOPs" -> (1e21, "x 10^21", ["flop"])."""
    power = re.match(r"\s*[x×*]\s*10\s*\^\s*([+-]?\d+)\s*(.*)$", units)
    if power:
        return 10.0 ** int(power.group(1)), f"x 10^{power.group(1)}", _words(power.group(2))
    words = _words(units)
    if words and words[0] in SCALE_WORDS:
        return SCALE_WORDS[words[0]], words[0], words[1:]
    return 1.0, "", words


def _subsequence(given: list[str], allowed: list[str]) -> bool:
    """Every unit word the student typed belongs to the question's units, in their order; a
    currency sign may stand anywhere."""
    dollars = given.count("$")
    if dollars > 1 or (dollars and "$" not in allowed and allowed):
        return False
    rest, it = [w for w in given if w != "$"], iter(w for w in allowed if w != "$")
    return all(any(w == a for a in it) for w in rest)


NUMBER = re.compile(r"""
    (?P<sign>[+-]?)\s*(?P<cur>(?:US\s?)?\$|USD\s)?\s*(?P<sign2>[+-]?)\s*
    (?P<num>\d{1,3}(?:\ \d{3})+(?:[.,]\d+)?(?!\d) | [\d.,]*\d | [.,]\d+)
    (?P<exp>\s*[eE][+-]?\d+ | \s*[x×*]\s*10\s*\^\s*[+-]?\d+)?
    (?P<rest>.*)""", re.VERBOSE | re.ASCII | re.DOTALL)


def read_number(answer: Any, units: str = "") -> Reading:
    """The value of a typed (text) or written (int, float) answer in the question's units."""
    if isinstance(answer, bool) or not isinstance(answer, (str, int, float)):
        raise UnreadableNumber(f"Expected a number{f' (in {units})' if units else ''}, got "
                               f"{type(answer).__name__} {_short(answer)}.")
    if not isinstance(answer, str):
        try:
            value = float(answer)
        except OverflowError:
            raise UnreadableNumber(f"{_short(answer)} is too large a number.") from None
        if not math.isfinite(value):
            raise UnreadableNumber(f"{answer!r} is not a finite number.")
        return Reading(value, f"Read your answer as {with_units(_fmt(value), units)}.")
    raw = answer.strip()
    if len(raw) > MAX_CHARS:
        raise UnreadableNumber(f"Could not read an answer of {len(raw)} characters as a number; type at most {MAX_CHARS}.")
    text = "".join(str(unicodedata.decimal(c)) if not c.isascii() and unicodedata.decimal(c, None) is not None else c
                   for c in raw)
    text = re.sub(r"[\u00a0\u202f\u2009\u2007]", " ", text).replace("\u2212", "-").replace("_", "")
    text = _arabic_point(text, raw, units)
    match = NUMBER.fullmatch(text)
    if not match or (match["sign"] and match["sign2"]):
        raise UnreadableNumber(_advice(raw, units))
    try:
        number = float(f"{_plain_decimal(match['num'], raw, units)}{_exponent(match['exp'])}")
    except ValueError:
        raise UnreadableNumber(_advice(raw, units)) from None
    if (match["sign"] or match["sign2"]) == "-":
        number = -number
    scale, scale_word, allowed = _question_units(units)
    given_currency = ["$"] if match["cur"] else []
    rest = match["rest"].strip()
    value, shown = None, ""
    if match["exp"] and scale_word.startswith("x 10^") and _subsequence(given_currency + _words(rest), allowed):
        value, shown = number / scale, f" ({_fmt(number)})"          # "3.1e21 FLOPs" in x 10^21 FLOPs
    elif _subsequence(given_currency + _words(rest), ([scale_word] if scale_word in SCALE_WORDS else []) + allowed):
        value = number                                   # "73,000 thousand dollars", "1,250 per day"
    else:
        head = re.match(r"([A-Za-z]+)\b\s*(.*)$", rest, re.DOTALL)
        factor = _scale(head.group(1)) if head else 0.0
        if factor and _subsequence(given_currency + _words(head.group(2)), allowed):
            value = number * factor / scale               # "$730k", "$73M" in thousands of dollars
            name = next(w for w, f in SCALE_WORDS.items() if f == factor)
            shown = f" ({_fmt(number)} {name})"
    if value is None and not allowed and scale == 1.0 and not given_currency and _words(rest) == ["%"]:
        value, shown = number / 100, f" ({_fmt(number)}%, as a fraction)"   # "39%" where a fraction is asked
    if value is None:
        words_only = not re.search(r"\d", rest)
        raise UnreadableNumber(_advice(raw, units, unit_problem=words_only and bool(rest or given_currency)))
    if not math.isfinite(value):
        raise UnreadableNumber(f"Could not read {raw!r} as a number: it is too large.")
    return Reading(value, f"Read your answer as {with_units(_fmt(value), units)}{shown}.")


def parse_number(text: Any, units: str = "") -> float:
    """The value alone (see read_number); raises UnreadableNumber with a message a student can act on."""
    return read_number(text, units).value


def _short(value: Any) -> str:
    text = repr(value) if not isinstance(value, int) else f"an integer of {len(str(abs(value)))} digits" \
        if abs(value) > 10**30 else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _exponent(exp: str | None) -> str:
    if not exp:
        return ""
    digits = re.search(r"([+-]?\d+)\s*$", exp).group(1)
    return f"e{digits}"


def _arabic_point(text: str, raw: str, units: str) -> str:
    """The Arabic decimal separator as ".": "٧٣٠٫٥" is 730.5. It is only ever the decimal point, so a
    second one, a "." anywhere or a "," after it is refused rather than read as grouping."""
    whole, point, frac = text.partition(ARABIC_DECIMAL)
    if point and (ARABIC_DECIMAL in frac or "." in text or "," in frac):
        raise UnreadableNumber(_advice(raw, units))
    return f"{whole}.{frac}" if point else text


def _grouped(digits: str, sep: str) -> bool:
    """True when `digits` is a whole number written with `sep` between groups of three (1,234,567)."""
    return re.fullmatch(rf"[1-9]\d{{0,2}}(?:{re.escape(sep)}\d{{3}})+", digits) is not None


def _plain_decimal(body: str, raw: str, units: str) -> str:
    """`body` (no sign, no exponent) rewritten with no grouping and a '.' decimal point."""
    if " " in body:                                                   # "36 500", "1 234,5"
        return body.replace(" ", "").replace(",", ".")
    commas, dots = body.count(","), body.count(".")
    if commas and dots:                                                # the last one is the decimal point
        point = "," if body.rfind(",") > body.rfind(".") else "."
        group = "." if point == "," else ","
        whole, _, frac = body.rpartition(point)
        if not _grouped(whole, group) or not frac.isdigit():
            raise UnreadableNumber(_advice(raw, units))
        return f"{whole.replace(group, '')}.{frac}"
    if commas or dots > 1:
        sep = "," if commas else "."
        if _grouped(body, sep):                                        # "36,500", "1.234.567"
            return body.replace(sep, "")
        whole, _, frac = body.partition(",")
        if commas == 1 and whole.isdigit() and frac.isdigit():         # "0,075", "2,5": a decimal comma
            return f"{whole}.{frac}"
        raise UnreadableNumber(_advice(raw, units))
    return body


def _advice(raw: str, units: str, unit_problem: bool = False) -> str:
    unit = f" (in {units})" if units else ""
    if unit_problem:
        return (f"Could not read {raw!r} as a number{unit}: "
                + (f"the question asks in {units}; type the number alone, or with those units, a "
                   "currency sign or k/M/thousand/million." if units else
                   "this question has no units; type the number alone."))
    return (f"Could not read {raw!r} as a number{unit}. Type digits, e.g. 36500, 36,500 or 0.075; "
            "a decimal comma works too (0,075).")
