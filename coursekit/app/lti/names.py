"""Which Unix name a person from the LMS gets: one documented claim, the same on every launch and in
every roster sync, so the person who is `ada` in the CSV roster and arrives from the LMS is the same `ada`.

`username_claim` in the platform settings names it: a top-level claim (`email`, `sub`), or `CLAIM#key`
for a key inside a claim. The default is the custom parameter `username` (`<custom claim>#username`),
which the admin sets to the LMS's login id (Canvas: `$Canvas.user.loginId`; Moodle: `$User.username`).
Several LMS people can map to one name; the hub binds each name to the first (hub/lti/identities.py).
An email keeps its part before the @.
The value is lowercased and must then be a valid Unix name; otherwise the launch is refused with the
value named, never silently replaced by another (a second account for the same person).
"""
from __future__ import annotations

import re

from coursekit.app.lti.claims import CUSTOM

USERNAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")


class LtiNameError(ValueError):
    pass


def claim_value(data: dict, claim: str):
    """`claim` looked up in an id_token (or an NRPS member): `name` or `name#key` for a nested one."""
    outer, _, inner = claim.partition("#")
    value = data.get(outer)
    if inner:
        value = value.get(inner) if isinstance(value, dict) else None
    if value is None and outer == CUSTOM and inner:        # NRPS members carry custom values in `message`
        for message in data.get("message") or []:
            custom = message.get(CUSTOM) if isinstance(message, dict) else None
            if isinstance(custom, dict) and custom.get(inner):
                return custom[inner]
    return value


def unix_name(data: dict, claim: str) -> str:
    value = claim_value(data, claim)
    if not isinstance(value, str) or not value.strip():
        raise LtiNameError(f"the LMS sent no {claim!r} for this person (user id {data.get('sub') or data.get('user_id')!r}): "
                         "set it in the tool's custom fields (docs/LMS.md)")
    name = value.strip().lower()
    if "@" in name and claim.split("#")[-1] in ("email", "username"):
        name = name.split("@", 1)[0]
    if not USERNAME.match(name):
        raise LtiNameError(f"{claim} {value!r} is not a usable Unix name (a lowercase letter first, then letters, "
                         "digits, - or _, at most 32)")
    return name
