"""The last line for a feedback page: anything executable in its body, found by parsing the page.

safe_html.py cleans what students wrote as nbconvert renders it; this reads the finished page, so a
config that lost the course's filters (a private folder's old copy, a new template) cannot hand a
student's script out. The page's <head> is the template's own (MathJax and its configuration);
everything that comes from a notebook lies in <body>, where no script, frame, plug-in, handler,
`javascript:`/`vbscript:` URL or non-image `data:` URL may appear.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

BANNED_TAGS = frozenset({"script", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "meta",
                         "link", "style", "form", "svg", "math", "template", "portal"})
URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href", "data", "background",
                            "poster", "codebase", "cite", "srcset", "ping", "lowsrc", "dynsrc"})
_IMAGE = re.compile(r"data:image/(png|jpeg|jpg|gif|webp|svg\+xml)[;,]")    # as an image, an SVG runs no script
_CSS_RISK = re.compile(r"url\s*\(|expression|javascript|behavior|\\", re.IGNORECASE)


def _normalized(url: str) -> str:
    return re.sub(r"[\x00-\x20\x7f-\xa0\s`]+", "", url).lower()     # html.parser has decoded entities


class _Finder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.in_body, self.found = False, []

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self.in_body = True
            return
        if not self.in_body:
            return
        if tag in BANNED_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            value = value or ""
            if name.startswith("on") or name == "srcdoc":
                self.found.append(f"{name}= on <{tag}>")
            elif name in URL_ATTRIBUTES:
                url = _normalized(value)
                if url.startswith(("javascript:", "vbscript:")) or (url.startswith("data:") and not (tag == "img" and _IMAGE.match(url))):
                    self.found.append(f"{name}={url[:40]!r} on <{tag}>")
            elif name == "style" and _CSS_RISK.search(value):
                self.found.append(f"style={value[:40]!r} on <{tag}>")

    handle_startendtag = handle_starttag


def unsafe_parts(html: str) -> list[str]:
    """What in the page's body could run code; empty for a safe page."""
    finder = _Finder()
    finder.feed(html)
    finder.close()
    return finder.found
