"""Read a number the way a person types it into a quiz, or say why it cannot be read.

Accepted: thousands separators ("36,500", "36 500", "1.234.567"), a decimal comma where it cannot
be a thousands separator ("0,075", "2,5"), scientific notation ("3.2e9"), a leading "$" and the
question's own units after the number ("140 GB"). Anything else is refused with a message, so a
typo is never graded as some other number and never costs a try.
"""
from __future__ import annotations

import math
import re


class UnreadableNumber(ValueError):
    """The text is not a number this parser will guess at; the message says what to type instead."""


def _grouped(digits: str, sep: str) -> bool:
    """True when `digits` is a whole number written with `sep` between groups of three (1,234,567)."""
    return re.fullmatch(rf"[1-9]\d{{0,2}}(?:{re.escape(sep)}\d{{3}})+", digits) is not None


def _strip_units(text: str, units: str) -> str:
    text = re.sub(r"^(?:US)?\$\s*", "", text)                      # "$0.002", "US$ 1.5"
    for unit in sorted({units.strip(), *units.split()} - {""}, key=len, reverse=True):
        if text.lower().endswith(unit.lower()):
            return text[: -len(unit)].rstrip()
    return text


def parse_number(text: str, units: str = "") -> float:
    """The number in `text`; raises UnreadableNumber with a message a student can act on."""
    raw = text.strip()
    body = _strip_units(raw, units).replace("\u202f", " ").replace("\u00a0", " ").replace("_", "")
    sign = ""
    if body[:1] in "+-\u2212" and body:
        sign, body = ("-" if body[0] != "+" else ""), body[1:].lstrip()
    scientific = re.fullmatch(r"(.*\d)\s*([eE][+-]?\d+)", body)       # "3.2e9"
    mantissa, exponent = scientific.groups() if scientific else (body, "")
    try:
        value = float(f"{sign}{_plain_decimal(mantissa.strip(), raw, units)}{exponent}")
    except ValueError:
        raise UnreadableNumber(_advice(raw, units)) from None
    if not math.isfinite(value):
        raise UnreadableNumber(_advice(raw, units))
    return value


def _plain_decimal(body: str, raw: str, units: str) -> str:
    """`body` (no sign, no exponent) rewritten with no grouping and a '.' decimal point."""
    if re.fullmatch(r"\d{1,3}(?: \d{3})+(?:[.,]\d+)?", body):       # "36 500", "1 234,5"
        body = body.replace(" ", "")
        return body.replace(",", ".")
    if not re.fullmatch(r"[\d.,]+", body):
        raise UnreadableNumber(_advice(raw, units))
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


def _advice(raw: str, units: str) -> str:
    unit = f" (in {units})" if units else ""
    return (f"Could not read {raw!r} as a number{unit}. Type digits, e.g. 36500, 36,500 or 0.075; "
            "a decimal comma works too (0,075).")
