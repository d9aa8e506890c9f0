"""The tool's configuration as an LMS registers it: its URLs at the hub's public address and Canvas's
developer-key JSON. One builder for the hub's /hub/lti/config and `course hub lti-tool-config`, the
admin's first step, which needs nothing from the LMS yet (docs/LMS.md, section 1).

The public address is what the LMS and browsers reach (`https://hub.example.edu`): behind a TLS proxy
the hub itself listens on http://127.0.0.1:PORT, which must never be handed to the LMS. No JupyterHub
import here: the CLI prints this without a hub.
"""
from __future__ import annotations

import json
from urllib.parse import urlparse

from coursekit.app.lti.claims import SCOPES

HUB_PREFIX = "/hub/"          # JupyterHub's own pages under its (default) base URL
LOGIN, CALLBACK, JWKS, CONFIG, TARGET = "lti13/oauth_login", "lti13/oauth_callback", "lti/jwks", "lti/config", "spawn"
USERNAME_FIELD = {"username": "$Canvas.user.loginId"}
TITLE = "LLM training vs inference"
DESCRIPTION = "The course's JupyterLab: lessons, labs and quizzes"


class PublicUrlError(ValueError):
    pass


def public_origin(url: str) -> str:
    """`https://hub.example.edu` (scheme and host, optional port) checked and normalised."""
    parsed = urlparse(url.strip())
    if parsed.scheme not in ("https", "http") or not parsed.hostname:
        raise PublicUrlError(f"--public-url {url!r}: give the address the LMS and browsers use, "
                             "e.g. https://hub.example.edu")
    if parsed.path.strip("/") or parsed.query or parsed.fragment or parsed.username:
        raise PublicUrlError(f"--public-url {url!r}: only scheme and host (and port), no path: the hub "
                             "serves at the root of its address")
    return f"{parsed.scheme}://{parsed.netloc.lower()}"


def urls(origin: str, prefix: str = HUB_PREFIX) -> dict[str, str]:
    """What each LMS form asks for, at `origin` (scheme://host) and the hub's URL prefix."""
    base = origin.rstrip("/") + prefix
    return {"login initiation": base + LOGIN, "redirect URI": base + CALLBACK, "target link (launch)": base + TARGET,
            "public key set (JWKS)": base + JWKS, "configuration JSON": base + CONFIG}


def canvas_json(origin: str, title: str, description: str, prefix: str = HUB_PREFIX) -> dict:
    """Canvas's developer key ("Paste JSON"); Moodle's form takes the same URLs from `urls`."""
    at = urls(origin, prefix)
    target = at["target link (launch)"]
    placements = [{"placement": "course_navigation", "message_type": "LtiResourceLinkRequest",
                   "target_link_uri": target}]
    placements += [{"placement": where, "message_type": "LtiDeepLinkingRequest", "target_link_uri": target}
                   for where in ("assignment_selection", "link_selection")]
    return {"title": title, "description": description, "oidc_initiation_url": at["login initiation"],
            "target_link_uri": target, "redirect_uris": [at["redirect URI"]],
            "public_jwk_url": at["public key set (JWKS)"],
            "scopes": list(SCOPES), "custom_fields": dict(USERNAME_FIELD),
            "extensions": [{"platform": "canvas.instructure.com", "privacy_level": "public",
                            "settings": {"placements": placements}}]}


def request_origin(public_url: str, scheme: str, host: str, headers) -> str:
    """The origin to advertise for a request: the configured public URL when there is one (forwarded
    headers are then ignored: anyone can send them), else what a TLS proxy in front forwarded
    (X-Forwarded-Proto, X-Forwarded-Host: the first value, the one the outermost proxy saw), else the
    request's own."""
    if public_url:
        return public_origin(public_url)
    proto = (headers.get("X-Forwarded-Proto") or scheme).split(",")[0].strip()
    forwarded_host = (headers.get("X-Forwarded-Host") or host).split(",")[0].strip()
    return f"{proto}://{forwarded_host}"


def setup_text(origin: str, title: str = TITLE, description: str = DESCRIPTION) -> str:
    """`course hub lti-tool-config`: the admin's first step, before anything is known from the LMS."""
    fields = {**urls(origin),
              "custom parameter": "username=$Canvas.user.loginId (Canvas), username=$User.username (Moodle)"}
    width = max(map(len, fields))
    lines = [f"The tool at {origin} (docs/LMS.md, section 1). Register it in the LMS with these URLs:", ""]
    lines += [f"  {what.ljust(width)}  {value}" for what, value in fields.items()]
    if not origin.startswith("https://"):
        lines += ["", ("warning: LTI 1.3 needs https: LMSs refuse http tool URLs, and browsers drop the launch's "
                       "cross-site cookies; put a TLS proxy in front of the hub (docs/LMS.md, section 1)")]
    settings = ("Then copy back into a settings file (docs/LMS.md, section 2): issuer, client_id (Canvas: the key's "
                "ID), deployment_id (after installing the tool in the course), the LMS's auth_login_url, "
                "auth_token_url, key_set_url, and the course's lineitems_url and memberships_url. context_id may "
                "wait: a hub started without it refuses every launch with a page naming the launching course's "
                "context_id; add it then and restart.")
    start = (f"Start the hub: course hub --lti-config FILE --public-url {origin} (the hub itself on loopback, "
             "behind the TLS proxy).")
    lines += ["", "Canvas: Developer Keys > + Developer Key > + LTI Key, Method \"Paste JSON\":", "",
              json.dumps(canvas_json(origin, title, description), indent=1), "", settings, start]
    return "\n".join(lines)
