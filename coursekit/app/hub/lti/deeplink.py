"""Deep Linking: in the LMS's external-tool dialog an instructor picks one of the course's labs or graded
quizzes; the hub answers the LMS with a signed LtiDeepLinkingResponse holding a resource link for it and
a line item (label, maximum, tag = the lab id, which `autograder lms post LAB` finds), so the LMS makes
the assignment and its gradebook column.

    /hub/lti/deeplink?id=...   the picker (only the instructor or TA whose launch opened it)
"""
from __future__ import annotations

import html
import json
import secrets
import time
import uuid
from pathlib import Path

import jwt
from jupyterhub.handlers import BaseHandler
from tornado import web

from coursekit.app.lti import keys as tool_keys
from coursekit.app.lti.claims import DL, LTI

PENDING: dict[str, dict] = {}        # picker id -> the request's settings, its instructor, when it expires
TTL_S = 1800


def remember_request(token: dict, user: str) -> str:
    now = time.time()
    for key in [k for k, v in PENDING.items() if v["expires"] < now]:
        del PENDING[key]
    picker = secrets.token_urlsafe(16)
    PENDING[picker] = {"settings": token.get(DL + "deep_linking_settings") or {}, "user": user,
                       "deployment": token.get(LTI + "deployment_id"), "expires": now + TTL_S}
    return picker


def assignments(course_source: Path) -> dict[str, float]:
    """lab or graded quiz id -> its points, from the released notebooks' nbgrader grade cells."""
    found = {}
    for folder in sorted((Path(course_source) / "labs").glob("*/")):
        points = 0.0
        for notebook in folder.glob("*.ipynb"):
            for cell in json.loads(notebook.read_text()).get("cells", []):
                meta = cell.get("metadata", {}).get("nbgrader") or {}
                if meta.get("grade"):
                    points += float(meta.get("points") or 0)
        if points > 0:
            found[folder.name] = points
    return found


class Picker(BaseHandler):
    def _pending(self) -> dict:
        request = PENDING.get(self.get_argument("id", ""))
        if request is None or request["expires"] < time.time():
            raise web.HTTPError(404, "this assignment dialog has expired: open it again from the LMS")
        if self.current_user is None or self.current_user.name != request["user"]:
            raise web.HTTPError(403, "this assignment dialog was opened by someone else")
        return request

    @web.authenticated
    def get(self):
        self._pending()
        labs = assignments(self.authenticator.course_source)
        xsrf = self.xsrf_token.decode() if isinstance(self.xsrf_token, bytes) else self.xsrf_token
        rows = "".join(
            f'<li><form method="post"><input type="hidden" name="_xsrf" value="{html.escape(xsrf)}">'
            f'<input type="hidden" name="lab" value="{html.escape(lab)}"><button>{html.escape(lab)}</button> '
            f'{points:g} points</form></li>' for lab, points in labs.items())
        self.finish(f'<!doctype html><html lang="en"><head><title>Pick an assignment</title></head><body>'
                    f'<main><h1>Add an assignment from the course</h1><ul>{rows or "<li>no released lab</li>"}</ul>'
                    f'</main></body></html>')

    @web.authenticated
    def post(self):
        request = self._pending()
        lab = self.get_argument("lab")
        labs = assignments(self.authenticator.course_source)
        if lab not in labs:
            raise web.HTTPError(400, f"{lab!r} is not a released lab of the course")
        settings, platform = request["settings"], self.authenticator.platform
        base = f"{self.authenticator.origin(self.request)}{self.hub.base_url}"
        item = {"type": "ltiResourceLink", "title": lab, "url": f"{base}spawn", "custom": {"lab": lab},
                "lineItem": {"label": lab, "scoreMaximum": labs[lab], "resourceId": lab, "tag": lab}}
        now = int(time.time())
        claims = {"iss": platform.client_id, "aud": platform.issuer, "iat": now, "exp": now + 300,
                  "nonce": uuid.uuid4().hex, LTI + "message_type": "LtiDeepLinkingResponse", LTI + "version": "1.3.0",
                  LTI + "deployment_id": request["deployment"], DL + "content_items": [item]}
        if settings.get("data"):
            claims[DL + "data"] = settings["data"]
        kid, pem = tool_keys.current(tool_keys.load(self.authenticator.keys_file))
        signed = jwt.encode(claims, pem, algorithm="RS256", headers={"kid": kid})
        PENDING.pop(self.get_argument("id"), None)
        back = html.escape(settings.get("deep_link_return_url", ""))
        self.finish(f'<!doctype html><html lang="en"><head><title>Back to the LMS</title></head>'
                    f'<body onload="document.forms[0].submit()"><form method="post" action="{back}">'
                    f'<input type="hidden" name="JWT" value="{html.escape(signed)}">'
                    f'<noscript><button>Back to the LMS</button></noscript></form></body></html>')
