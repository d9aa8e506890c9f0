"""Prose with prices in it, displayed from a lesson cell without being typeset as mathematics.

`IPython.display.Markdown("... $0.002 per thousand ... $730 million")` goes through MathJax in
JupyterLab and in nbconvert's HTML, which reads the text between two dollar signs as LaTeX (and
escaping them as `\\$` does not survive the Markdown pass). `prose(text)` renders the Markdown to
HTML with mistune (nbconvert's own renderer), writes each dollar sign as an entity, and marks the
block for MathJax to skip: `mathjax_ignore` (MathJax 3, JupyterLab) and `tex2jax_ignore`
(MathJax 2, nbconvert's templates).
"""
from __future__ import annotations

import re

import mistune

IGNORE_CLASSES = "course-prose mathjax_ignore tex2jax_ignore"


class Prose:
    """A displayable block: HTML for notebooks and nbconvert, the plain text elsewhere."""

    def __init__(self, text: str):
        self.text = re.sub(r"\\\$", "$", text)  # `\$` written for Markdown() means a plain dollar

    def _repr_html_(self) -> str:
        body = mistune.html(self.text)  # mistune's default plugins have no maths syntax
        return f'<div class="{IGNORE_CLASSES}">{body.replace("$", "&#36;")}</div>'

    def __repr__(self) -> str:
        return self.text


def prose(text: str) -> Prose:
    """Display `text` (Markdown) with its dollar signs shown as dollar signs, never as maths."""
    return Prose(text)
