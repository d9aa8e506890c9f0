"""An LTI 1.3 platform's settings, as the LMS admin copies them back after registering the tool (docs/LMS.md).

    {"issuer": "https://canvas.instructure.com", "client_id": "10000000000042", "deployment_id": "7:abc...",
     "auth_login_url": ".../api/lti/authorize_redirect", "auth_token_url": ".../login/oauth2/token",
     "key_set_url": ".../api/lti/security/jwks",
     "auth_audience": "(optional) the token endpoint's audience, when the LMS wants other than its URL",
     "lineitems_url": "(passback) the course's AGS line-items URL, e.g. .../api/lti/courses/42/line_items",
     "memberships_url": "(passback, roster) the course's NRPS URL, .../api/lti/courses/42/names_and_roles",
     "lineitem_urls": {"LAB": "(optional) the line item Deep Linking made for a lab"},
     "context_id": "(course hub) the LMS course's context id; launches from other courses are refused",
     "username_claim": "(optional) see names.py", "timeout_s": 20}

A missing or malformed field is refused with the file and the field named, before anything runs.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from urllib.parse import urlparse

from coursekit.app.lti.claims import CUSTOM

REQUIRED = ("issuer", "client_id", "deployment_id", "auth_login_url", "auth_token_url", "key_set_url")
URLS = ("auth_login_url", "auth_token_url", "key_set_url", "lineitems_url", "memberships_url")
DEFAULT_USERNAME_CLAIM = CUSTOM + "#username"


class PlatformError(ValueError):
    """The platform settings file cannot be used; the message names the file and field."""


@dataclass(frozen=True)
class Platform:
    issuer: str
    client_id: str
    deployment_id: str
    auth_login_url: str
    auth_token_url: str
    key_set_url: str
    auth_audience: str = ""
    lineitems_url: str = ""
    memberships_url: str = ""
    lineitem_urls: dict = field(default_factory=dict)
    context_id: str = ""         # the LMS course this hub serves (`course hub`: launches from others are refused)
    username_claim: str = DEFAULT_USERNAME_CLAIM
    timeout_s: float = 20.0
    source: str = ""         # the file it came from, for messages


def load_platform(path: str | Path) -> Platform:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise PlatformError(f"{path}: cannot read the LTI platform settings ({error})") from None
    except json.JSONDecodeError as error:
        raise PlatformError(f"{path}: not JSON (line {error.lineno}: {error.msg})") from None
    if not isinstance(data, dict):
        raise PlatformError(f"{path}: expected a JSON object of settings")
    known = {f.name for f in fields(Platform)} - {"source"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise PlatformError(f"{path}: unknown setting(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    missing = [name for name in REQUIRED if not str(data.get(name) or "").strip()]
    if missing:
        raise PlatformError(f"{path}: missing {', '.join(missing)}: copy them from the LMS's registration of the tool")
    for name in URLS:
        value = data.get(name)
        if value and urlparse(str(value)).scheme not in ("http", "https"):
            raise PlatformError(f"{path}: {name} {value!r} is not an http(s) URL")
    if not isinstance(data.get("lineitem_urls", {}), dict):
        raise PlatformError(f"{path}: lineitem_urls must map lab ids to line item URLs")
    try:
        timeout = float(data.get("timeout_s", 20.0))
    except (TypeError, ValueError):
        raise PlatformError(f"{path}: timeout_s must be a number of seconds") from None
    text = {k: str(v).strip() for k, v in data.items() if k not in ("lineitem_urls", "timeout_s")}
    return Platform(**{**text, "lineitem_urls": data.get("lineitem_urls", {}), "timeout_s": timeout,
                       "source": str(path)})
