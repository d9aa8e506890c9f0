"""The hub's LTI 1.3 endpoints, on jupyterhub-ltiauthenticator's handlers:

    /hub/lti13/oauth_login     OIDC third-party-initiated login (the LMS's "login initiation URL")
    /hub/lti13/oauth_callback  the launch: the LMS posts the id_token here ("redirect URI")
    /hub/lti/jwks              the tool's public key set ("public JWK URL")
    /hub/lti/config            the tool's configuration JSON (Canvas "Paste JSON"/"Enter URL")

What they add to ltiauthenticator's: the deployment id and the course (context) checked, a nonce used
once only (kept on disk, nonces.py: a captured launch posted again is refused even with its cookies and
after a hub restart), the roles mapped (roles.py), the Unix name from the documented claim (names.py),
and every refusal a page that says what was wrong and what to do, before anything (user, account,
server) is created. A launch from an assignment Deep Linking made opens that assignment (assignment.py).
"""
from __future__ import annotations

import json

from jupyterhub.handlers import BaseHandler
from ltiauthenticator.lti13.error import (
    InvalidAudienceError,
    TokenError,
    ValidationError,
)
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13LoginInitHandler
from tornado.web import HTTPError

from coursekit.app.hub.lti.assignment import landing, linked_assignment
from coursekit.app.hub.lti.identities import (
    Identities,
    IdentityTaken,
    release_command,
    roster_conflict,
)
from coursekit.app.hub.lti.toolconfig import canvas_json
from coursekit.app.lti import keys as tool_keys
from coursekit.app.lti.claims import LTI
from coursekit.app.lti.names import LtiNameError, unix_name
from coursekit.app.lti.roles import course_role


class Refused(HTTPError):
    """A launch refused: the page shows `what` and `fix`."""

    def __init__(self, status: int, what: str, fix: str):
        super().__init__(status, "%s", f"This launch from the LMS was refused: {what}. Nothing was created. {fix}")


AGAIN = "Open the course again from the LMS."
ASK = "If it happens again, tell the course's instructor (docs/LMS.md, launch errors)."


def _secure(handler) -> bool:
    return handler.authenticator.get_uri_scheme(handler.request) == "https"


class LaunchInit(LTI13LoginInitHandler):
    """Step 1: the LMS sends the browser here; check it is our platform, then redirect to its auth URL."""

    def post(self):
        platform = self.authenticator.platform
        issuer = self.get_argument("iss", "")
        if issuer != platform.issuer:
            raise Refused(400, f"it came from {issuer or 'an unnamed platform'!r}, not this course's LMS "
                               f"({platform.issuer})", ASK)
        client = self.get_argument("client_id", "")
        if client and client != platform.client_id:
            raise Refused(400, f"client id {client!r} is not this tool's registration ({platform.client_id})", ASK)
        deployment = self.get_argument("lti_deployment_id", "")
        if deployment and deployment != platform.deployment_id:
            raise Refused(400, f"deployment {deployment!r} is not this course's ({platform.deployment_id})", ASK)
        return super().post()

    get = post

    def get_redirect_uri(self) -> str:       # at the public address, not the Host the hub saw
        return self.authenticator.origin(self.request) + self.authenticator.callback_url(self.hub.server.base_url)

    def _set_oauth_cookie(self, key: str, value):
        # the LMS posts the launch cross-site: a Lax cookie would not come back with it
        extra = {"samesite": "None", "secure": True} if _secure(self) else {}
        self._set_cookie(key, value, expires_days=1 / 144, httponly=True, encrypted=True, **extra)


class Launch(LTI13CallbackHandler):
    """Step 3: the id_token posted back by the LMS: verified, then the person logged in."""

    async def post(self):
        try:
            token = self.decode_and_validate_launch_request()
        except Refused:
            raise
        except InvalidAudienceError as error:
            raise Refused(401, f"the id_token is for another tool ({error})", ASK) from None
        except TokenError as error:
            raise Refused(401, f"the id_token does not verify ({_token_reason(str(error))})", f"{AGAIN} {ASK}") from None
        except ValidationError as error:
            raise Refused(400, f"the launch is incomplete ({error})", ASK) from None
        except HTTPError as error:     # ltiauthenticator's state and nonce checks
            raise Refused(400, f"{error.log_message} (this browser did not start this launch, or started it "
                               "more than 10 minutes ago)", AGAIN) from None
        deep_link = token.get(LTI + "message_type") == "LtiDeepLinkingRequest"
        if deep_link and course_role(token.get(LTI + "roles")) not in ("instructor", "ta"):
            raise Refused(403, "only the course's instructors and TAs add assignments", ASK)
        lab = None if deep_link else linked_assignment(token)       # checked before anything is created
        user = await self.login_user(token)
        if user is None:
            raise Refused(403, "this person may not use the course's hub", ASK)
        if deep_link:       # the assignment picker (deeplink.py)
            from coursekit.app.hub.lti.deeplink import remember_request

            return self.redirect(f"{self.hub.base_url}lti/deeplink?id={remember_request(token, user.name)}")
        if lab:             # a launch from an assignment Deep Linking made: that notebook (assignment.py)
            role = course_role(token.get(LTI + "roles"))
            return self.redirect(await landing(self.authenticator, user, role, lab, self.hub.base_url))
        await self.redirect_to_next_url(user)

    def decode_and_validate_launch_request(self):
        token = super().decode_and_validate_launch_request()
        platform = self.authenticator.platform
        if token.get(LTI + "deployment_id") != platform.deployment_id:
            raise Refused(400, f"deployment {token.get(LTI + 'deployment_id')!r} is not this course's "
                               f"({platform.deployment_id})", ASK)
        context = (token.get(LTI + "context") or {}).get("id")
        if not self.authenticator.context_id:      # set-up: the page tells the admin the course's id
            title = (token.get(LTI + "context") or {}).get("title") or "(no title)"
            raise Refused(403, f"this hub does not yet know which LMS course it serves; this launch came from the "
                               f"course {title!r}, whose context_id is {context!r}",
                          f"The hub's admin adds \"context_id\": \"{context}\" to the hub's --lti-config file and "
                          "restarts the hub; then everyone of that course can launch (docs/LMS.md, section 2).")
        if context != self.authenticator.context_id:
            raise Refused(403, f"it comes from another course of the LMS ({context!r}; this hub serves "
                               f"{self.authenticator.context_id!r}), and roles there count nothing here", ASK)
        if course_role(token.get(LTI + "roles")) is None:
            raise Refused(403, "the LMS sent no role in this course (instructor, TA or student) for this person", ASK)
        try:
            token["course_username"] = unix_name(token, platform.username_claim)
        except LtiNameError as error:
            raise Refused(400, str(error), ASK) from None
        if not isinstance(token.get("nonce"), str) or not token["nonce"]:
            raise Refused(400, f"the launch is incomplete (its nonce is {type(token.get('nonce')).__name__}, "
                               "not a string)", ASK)
        if not self.authenticator.used_nonces.first_use(token["nonce"]):
            raise Refused(400, "this launch was already used (a replayed id_token)", AGAIN)
        name = token["course_username"]
        role = course_role(token.get(LTI + "roles"))
        conflict = roster_conflict(name, self.authenticator.roster_roles.get(name), role)
        if conflict:
            raise Refused(403, conflict, f"If {name!r} is not you, ask the LMS admin to give you another username; "
                          "otherwise ask the course's instructor to fix your role in the LMS or the roster "
                          "(docs/LMS.md, section 3).")
        try:
            Identities(self.authenticator.data).bind(name, platform.issuer, token.get("sub"))
        except IdentityTaken as error:
            raise Refused(403, str(error), f"If {name!r} is not you, ask the LMS admin to give you another "
                          f"username. If the course's instructor confirms your LMS account replaced the old "
                          f"one, the hub's admin runs `{release_command(self.authenticator.data, name)}` "
                          "(as root), then you launch again (docs/LMS.md, section 3).") from None
        return token


def _token_reason(text: str) -> str:
    known = {"Signature verification failed": "its signature is not the LMS's: forged or altered",
             "Unable to find a signing key": "it is signed with a key the LMS's key set does not have (unknown kid)",
             "Signature has expired": "it has expired", "Invalid issuer": "another platform issued it",
             "too long ago": "it was issued too long ago"}
    return next((f"{why}: {text}" for needle, why in known.items() if needle in text), text)


class Jwks(BaseHandler):
    """The public half of the tool's key set; read per request, so a rotation shows at once."""

    def get(self):
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "max-age=300")
        self.write(json.dumps(tool_keys.public_jwks(tool_keys.load(self.authenticator.keys_file))))


class ToolConfig(BaseHandler):
    """What an LMS admin pastes (Canvas's JSON; Moodle's fields are the same URLs), at the hub's public
    address (toolconfig.py): docs/LMS.md."""

    def get(self):
        auth = self.authenticator
        config = canvas_json(auth.origin(self.request), auth.tool_name, auth.tool_description, self.hub.base_url)
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps(config, indent=1))
