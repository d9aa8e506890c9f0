"""What a student wrote reaches the course's HTML pages inert: no script, handler or `javascript:` URL.

nbconvert writes a notebook's markdown, raw cells and outputs into the page as they are. Its own
`sanitize_html` switch cleans outputs and drops scripts and widget state, but nbgrader's feedback and
formgrade templates call `markdown2html` (and then `strip_files_prefix`, which turns
`files/javascript:` into `javascript:`) with no cleaning after; and nbconvert's `clean_html`
allowlist escapes a plain `<p>`, `<h2>` or `<img>`. So the course swaps in three filters on nbconvert's
HTMLExporter (OPTIONS: nbgrader_config.py, and `autograder feedback` passes them on nbgrader's command
line for a copied config that lacks them): markdown2html renders as nbconvert does and cleans,
strip_files_prefix strips and cleans, clean_html cleans with the allowlist below. What honest markdown
makes (paragraphs, headings, tables, lists, code, links, images, math left as text for MathJax)
passes; any other tag is shown escaped, as text; a URL that is not http(s), mailto, relative or a
raster `data:image` is dropped.
"""
from __future__ import annotations

import re

import bleach
from bleach.css_sanitizer import CSSSanitizer
from bleach.html5lib_shim import convert_entities
from jinja2 import pass_context
from nbconvert.filters.strings import strip_files_prefix as _nbconvert_strip_files_prefix
from traitlets.config import LoggingConfigurable

TAGS = frozenset("""a abbr b blockquote br caption cite code col colgroup dd del details div dl dt em
    figcaption figure h1 h2 h3 h4 h5 h6 hr i img ins kbd li mark ol p pre q s samp small span strong
    sub summary sup table tbody td tfoot th thead tr u ul var""".split())
_CELL = ["colspan", "rowspan", "align"]
ATTRIBUTES = {"*": ["class", "id", "title", "lang", "dir", "style"], "a": ["href"],
              "img": ["src", "alt", "width", "height"], "th": _CELL, "td": _CELL,
              "ol": ["start", "type"], "col": ["span"], "details": ["open"]}
PROTOCOLS = frozenset({"http", "https", "mailto", "data"})     # data: only for raster images, below
_RASTER = re.compile(r"data:image/(png|jpeg|jpg|gif|webp);base64,[a-z0-9+/=]*$")
# Table alignment (mistune writes style="text-align: ...") and a few harmless looks; no property
# that takes a URL, and a value with url(, expression( or a CSS escape is dropped all the same.
STYLES = frozenset({"text-align", "vertical-align", "color", "background-color", "font-weight",
                    "font-style", "text-decoration", "width", "height", "max-width"})
_CSS_RISK = re.compile(r"url\s*\(|expression|\\|@import|javascript|behavior", re.IGNORECASE)


class _Css(CSSSanitizer):
    def sanitize_css(self, style):
        cleaned = super().sanitize_css(style)
        return "" if _CSS_RISK.search(cleaned) else cleaned


def _normalized(value: str) -> str:
    """A URL as bleach judges it: entities decoded, whitespace, control and non-ASCII characters gone."""
    return re.sub(r"[^\x00-\x7f]", "", re.sub(r"[`\000-\040\177-\240\s]+", "", convert_entities(value))).lower()


def _allowed(tag: str, name: str, value: str) -> bool:
    if name not in ATTRIBUTES.get(tag, []) and name not in ATTRIBUTES["*"]:
        return False
    if name in ("href", "src") and _normalized(value).startswith("data:"):
        return tag == "img" and bool(_RASTER.match(_normalized(value)))
    return True


def clean_html(html) -> str:
    """`html` with every tag, attribute and URL outside the allowlist escaped or dropped."""
    cleaner = bleach.Cleaner(tags=TAGS, attributes=_allowed, protocols=PROTOCOLS, strip=False,   # one per call:
                             strip_comments=True, css_sanitizer=_Css(allowed_css_properties=STYLES))  # not thread-safe
    return cleaner.clean(html.decode() if isinstance(html, bytes) else str(html))


def strip_files_prefix(html: str) -> str:
    # nbconvert's filter rewrites URLs; what it leaves is cleaned again, never trusted
    return clean_html(_nbconvert_strip_files_prefix(html))


class Markdown2Html(LoggingConfigurable):
    """nbconvert's markdown2html (its exporter's settings: attachments, anchors), cleaned. nbconvert
    builds a configurable filter with `parent=` the exporter that uses it."""

    jinja_pass_arg = pass_context(lambda: None).jinja_pass_arg     # jinja hands __call__ its context

    def __call__(self, context, source: str) -> str:
        render = getattr(self.parent, "markdown2html", None)
        if render is None:
            raise TypeError(f"{type(self).__name__} is a filter for nbconvert's HTMLExporter, not {type(self.parent).__name__}")
        return clean_html(render(context, source))


# nbgrader_config.py names the same, as strings: loading the config imports nothing
FILTERS = {"markdown2html": f"{__name__}.Markdown2Html", "strip_files_prefix": f"{__name__}.strip_files_prefix",
           "clean_html": f"{__name__}.clean_html"}


def command_line() -> list[str]:
    """The same settings as nbgrader options, for a run that must not depend on the config file."""
    return ["--HTMLExporter.sanitize_html=True",          # outputs cleaned; scripts and widget state left out
            *(f"--HTMLExporter.filters={name}={target}" for name, target in FILTERS.items())]
