"""The class's authenticator when `course hub --lti-config FILE` is given: LTI 1.3 launches from the LMS,
and beside them (with --roster) the roster's first-use passwords.

A launch logs in the person named by the documented claim (names.py): the roster's `ada` arriving from
the LMS is the same `ada`, same account and files. Someone new gets their Unix account and home as the
roster's people do (`admit`, as root, before their server starts), and their course role is kept in
<data>/lti/people.json so the next server start (or a hub restart) knows it. Instructors are the hub's
admins; TAs get the instructor's course tools in their server but no hub admin; students get a student's.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from firstuseauthenticator import FirstUseAuthenticator
from traitlets import Dict, Unicode, default

from coursekit.app.hub.lti import launch
from coursekit.app.hub.lti.deeplink import Picker
from coursekit.app.hub.lti.toolconfig import DESCRIPTION, TITLE, request_origin
from coursekit.app.lti.platform import load_platform
from coursekit.app.lti.roles import course_role

_lock = threading.Lock()


def people_file(data: Path) -> Path:
    return Path(data) / "lti" / "people.json"


def read_people(data: Path) -> dict:
    """unix name -> {"role", "user_id"} for everyone who arrived by LTI."""
    path = people_file(data)
    return json.loads(path.read_text()) if path.is_file() else {}


def remember(data: Path, name: str, role: str, user_id: str) -> None:
    path = people_file(data)
    with _lock:
        people = read_people(data)
        people[name] = {"role": role, "user_id": user_id}
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(people, indent=1, sort_keys=True))
        os.replace(tmp, path)


class ClassAuthenticator(FirstUseAuthenticator):
    lti_config = Unicode(config=True, help="the LMS's platform settings (coursekit/app/lti/platform.py)")
    data = Unicode(config=True, help="the hub's data folder")
    context_id = Unicode("", config=True, help="the LMS course (context id) this hub serves; other courses are refused")
    keys_file = Unicode(config=True, help="the tool's key set (its public half is served at /hub/lti/jwks)")
    course_source = Unicode(config=True, help="the course whose released labs Deep Linking offers")
    tool_name = Unicode(TITLE, config=True)
    tool_description = Unicode(DESCRIPTION, config=True)
    uri_scheme = Unicode("auto", config=True)
    admit = None        # set by configure(): makes a newcomer's account, home and course copy (as root)
    student_environment = None      # set by configure(): name -> the environment a student's server gets

    login_service = "your LMS"

    @default("allow_all")
    def _no_password_for_strangers(self):
        return False        # the password form is for the roster only, even when the roster is empty

    @property
    def platform(self):
        return load_platform(self.lti_config)

    @property
    def used_nonces(self):
        """Nonces of accepted launches, on disk: a replay is refused across a hub restart (nonces.py)."""
        from coursekit.app.hub.lti.nonces import FILE, UsedNonces

        return UsedNonces(people_file(Path(self.data)).parent / FILE)       # <data>/lti/, made at the hub's start

    # what ltiauthenticator's handlers read from their authenticator
    issuer = property(lambda self: self.platform.issuer)
    client_id = property(lambda self: {self.platform.client_id})
    authorize_url = property(lambda self: self.platform.auth_login_url)
    jwks_endpoint = property(lambda self: self.platform.key_set_url)
    jwks_algorithms = property(lambda self: ["RS256"])

    roster_roles = Dict(config=True, help="the CSV roster's name -> 'instructor' or 'student'")
    public_url = Unicode("", config=True, help="the hub's public address (https://hub.example.edu): every URL "
                         "handed to the LMS is made from it, whatever the request's Host and forwarded headers")

    def origin(self, request) -> str:
        """scheme://host the LMS and browsers use for this hub (toolconfig.request_origin)."""
        origin = request_origin(self.public_url, request.protocol, request.host, request.headers)
        return origin if self.uri_scheme == "auto" else f"{self.uri_scheme}://{origin.split('://', 1)[1]}"

    def get_uri_scheme(self, request) -> str:
        return self.origin(request).split("://", 1)[0]

    def callback_url(self, base_url):     # the redirect URI ltiauthenticator's login handler sends to the LMS
        from jupyterhub.utils import url_path_join

        return url_path_join(base_url, "lti13", "oauth_callback")

    def get_handlers(self, app):
        return super().get_handlers(app) + [
            (r"/lti13/oauth_login", launch.LaunchInit), (r"/lti13/oauth_callback", launch.Launch),
            (r"/lti/jwks", launch.Jwks), (r"/lti/config", launch.ToolConfig), (r"/lti/deeplink", Picker)]

    async def authenticate(self, handler, data):
        if isinstance(handler, launch.Launch):
            role = course_role(data.get(launch.LTI + "roles"))
            name = data["course_username"]
            if self.admit is not None:
                from coursekit.app.hub.accounts import AccountError

                try:
                    self.admit(name, role)
                except AccountError as error:
                    raise launch.Refused(403, str(error), launch.ASK) from None
            remember(Path(self.data), name, role, data["sub"])
            return {"name": name, "admin": role == "instructor", "lti": True}
        return await super().authenticate(handler, data)

    def check_allowed(self, username, authentication=None):
        if authentication and authentication.get("lti"):
            return True        # the LMS vouched for them in a signed launch of this course
        return super().check_allowed(username, authentication)
