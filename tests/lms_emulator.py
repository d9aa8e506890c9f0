"""An emulated LMS for the LTI tests: a real HTTP server on loopback that plays an LTI 1.3 platform.

    GET  /jwks                               the platform's key set (RS256; id_tokens are signed with it)
    GET  /course/<user id>                   the course's link in the LMS: posts the tool's login initiation
    GET  /link/<link id>/<user id>           an assignment's link (made by Deep Linking): the same, and its
                                             launch carries the link's custom parameters and line item
    GET  /auth                               OIDC authorization endpoint: answers the tool's login redirect with
                                             an auto-submitting form posting a signed id_token and the state back
    POST /deeplink-return                    a Deep Linking response: verified against the tool's key set, its
                                             resource links and line items made (`links`, `lineitems`)
    POST /token                              OAuth2 client credentials; the client proves itself with a JWT
                                             assertion signed by a key in the tool's key set (`tool_jwks`)
    GET  /nrps/<context>                     NRPS memberships (paged with Link: rel="next")
    GET|POST /ags/<context>/lineitems        AGS line items (filter by tag / resource_id), create one
    GET  /ags/<context>/lineitems/<n>        one line item
    POST /ags/<context>/lineitems/<n>/scores a score (kept: the latest per user, and every post in `posts`)
    GET  /ags/<context>/lineitems/<n>/results

Failure injection: `fail(kind, status=500, times=1, after=0)` makes the next `times` requests of a kind
("token", "scores", "lineitems", "nrps", "jwks", "auth") answer `status` after `after` have passed;
`hang(kind, ...)` makes them wait until the client gives up (released at stop); `revoke_tokens()` (now)
or `revoke_at(kind, after)` (mid-run) makes every access token issued so far answer 401.
Launches: `launch_edit` changes the next id_token's claims,
header or signing key (forged signature, unknown kid, wrong aud, ...).
"""
from __future__ import annotations

import html
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

import jwt
import requests
from cryptography.hazmat.primitives.asymmetric import rsa

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL = "https://purl.imsglobal.org/spec/lti-dl/claim/"
ROLE = "http://purl.imsglobal.org/vocab/lis/v2/membership#"
SCOPES = {"https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
          "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
          "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
          "https://purl.imsglobal.org/spec/lti-ags/scope/score",
          "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"}
PAGE = 50


@dataclass
class Person:
    user_id: str                 # the LTI `sub`
    username: str                # sent as the custom parameter `username` ($User.username)
    name: str
    roles: tuple = (ROLE + "Learner",)
    status: str = "Active"

    @property
    def email(self) -> str:
        return f"{self.username}@uni.example"


@dataclass
class Rule:
    kind: str
    action: str                  # "status" or "hang"
    status: int = 500
    times: int = 1
    after: int = 0


@dataclass
class EmulatedLMS:
    client_id: str = "tool-client-1"
    deployment_id: str = "deploy-1"
    context_id: str = "course-42"
    tool_jwks: object = None                  # callable -> JWKS dict, or the tool's JWKS URL
    redirect_uris: list = field(default_factory=list)   # empty: any (tests that do not launch)
    people: dict = field(default_factory=dict)          # user_id -> Person
    lineitems: dict = field(default_factory=dict)       # n -> line item dict
    results: dict = field(default_factory=dict)         # (n, user_id) -> latest score dict
    posts: list = field(default_factory=list)           # every accepted score post
    links: list = field(default_factory=list)           # resource links made by Deep Linking responses
    launch_edit: object = None                          # one-shot: fn(claims, header) -> (claims, header, key)
    tool_login_url: str = ""                            # the tool's login initiation URL (GET /course/<user>)
    tool_target: str = ""                               # the tool's target link URI
    hang_s: float = 30.0

    def __post_init__(self):
        self.keys = {f"lms-{i}": rsa.generate_private_key(public_exponent=65537, key_size=2048) for i in (1, 2)}
        self.signing_kid = "lms-1"
        self.tokens: dict[str, tuple[set, float]] = {}
        self.revoked: set[str] = set()
        self.used_jti: set[str] = set()
        self.rules: list[Rule] = []
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()
        self.release = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # -- lifecycle and settings ---------------------------------------------------------------------
    def start(self) -> "EmulatedLMS":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    @property
    def issuer(self) -> str:
        return self.url

    def platform_settings(self, **extra) -> dict:
        """What the LMS admin copies back after registering the tool (the tool's platform JSON)."""
        return {"issuer": self.issuer, "client_id": self.client_id, "deployment_id": self.deployment_id,
                "auth_login_url": f"{self.url}/auth", "auth_token_url": f"{self.url}/token",
                "key_set_url": f"{self.url}/jwks", "lineitems_url": f"{self.url}/ags/{self.context_id}/lineitems",
                "memberships_url": f"{self.url}/nrps/{self.context_id}", **extra}

    def enrol(self, username: str, role: str = "Learner", name: str = "", user_id: str = "") -> Person:
        person = Person(user_id or f"u-{secrets.token_hex(6)}", username, name or username.title(), (ROLE + role,))
        self.people[person.user_id] = person
        return person

    def by_username(self, username: str) -> Person:
        return next(p for p in self.people.values() if p.username == username)

    def fail(self, kind: str, status: int = 500, times: int = 1, after: int = 0) -> None:
        self.rules.append(Rule(kind, "status", status, times, after))

    def hang(self, kind: str, times: int = 1, after: int = 0) -> None:
        self.rules.append(Rule(kind, "hang", 0, times, after))

    def revoke_at(self, kind: str, after: int = 0) -> None:
        """Revoke every access token just before the (after+1)-th request of `kind` is served."""
        self.rules.append(Rule(kind, "revoke", 0, 1, after))

    def revoke_tokens(self) -> None:
        with self.lock:
            self.revoked |= set(self.tokens)

    def score_of(self, lineitem_tag: str, username: str) -> dict | None:
        item = next((n for n, li in self.lineitems.items() if li.get("tag") == lineitem_tag), None)
        return self.results.get((item, self.by_username(username).user_id)) if item else None

    # -- id_tokens ----------------------------------------------------------------------------------
    def jwks(self) -> dict:
        keys = []
        for kid, key in self.keys.items():
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
            keys.append({**jwk, "kid": kid, "alg": "RS256", "use": "sig"})
        return {"keys": keys}

    def id_token(self, person: Person, nonce: str, target: str, message_type: str = "LtiResourceLinkRequest",
                 resource_link: str = "course-nav") -> str:
        now = int(time.time())
        claims = {
            "iss": self.issuer, "aud": self.client_id, "azp": self.client_id, "sub": person.user_id,
            "iat": now, "exp": now + 300, "nonce": nonce, "name": person.name, "email": person.email,
            LTI + "message_type": message_type, LTI + "version": "1.3.0",
            LTI + "deployment_id": self.deployment_id, LTI + "target_link_uri": target,
            LTI + "roles": list(person.roles), LTI + "resource_link": {"id": resource_link},
            LTI + "context": {"id": self.context_id, "label": "LLM101", "title": "Training vs inference"},
            LTI + "custom": {"username": person.username},
            LTI + "tool_platform": {"guid": "emulated-lms", "name": "Emulated LMS", "product_family_code": "emulator"},
            LTI + "launch_presentation": {"document_target": "window", "locale": "en"},
            NRPS_CLAIM: {"context_memberships_url": f"{self.url}/nrps/{self.context_id}", "service_versions": ["2.0"]},
            AGS_CLAIM: {"scope": sorted(s for s in SCOPES if "lti-ags" in s),
                        "lineitems": f"{self.url}/ags/{self.context_id}/lineitems"},
        }
        link = next((li for li in self.links if li["id"] == resource_link), None)
        if link is not None:          # an assignment Deep Linking made: its custom parameters and line item
            claims[LTI + "custom"] = {**link.get("custom", {}), **claims[LTI + "custom"]}
            claims[LTI + "resource_link"] = {"id": link["id"], "title": link.get("title", "")}
            item = next((li for li in self.lineitems.values() if li.get("resourceLinkId") == link["id"]), None)
            if item is not None:
                claims[AGS_CLAIM]["lineitem"] = item["id"]
        if message_type == "LtiDeepLinkingRequest":       # the external-tool dialog of an assignment
            del claims[LTI + "resource_link"]
            claims[DL + "deep_linking_settings"] = {
                "deep_link_return_url": f"{self.url}/deeplink-return", "accept_types": ["ltiResourceLink"],
                "accept_presentation_document_targets": ["window", "iframe"], "data": "dl-data-1"}
        header = {"kid": self.signing_kid}
        key = self.keys[self.signing_kid]
        if self.launch_edit:
            edit, self.launch_edit = self.launch_edit, None
            claims, header, key = edit(claims, header, key)
        return jwt.encode(claims, key, algorithm="RS256", headers=header)

    # -- the tool's client assertion ----------------------------------------------------------------
    def _tool_keys(self) -> dict:
        source = self.tool_jwks
        if callable(source):
            return source()
        return requests.get(source, timeout=10).json()

    def check_assertion(self, assertion: str) -> str | None:
        """None if the assertion is good, else the OAuth2 error description."""
        try:
            kid = jwt.get_unverified_header(assertion).get("kid")
            jwk = next((k for k in self._tool_keys()["keys"] if k.get("kid") == kid), None)
            if jwk is None:
                return f"no key {kid!r} in the tool's key set"
            claims = jwt.decode(assertion, jwt.algorithms.RSAAlgorithm.from_jwk(json.dumps(jwk)), algorithms=["RS256"],
                                audience=f"{self.url}/token", issuer=self.client_id)
        except jwt.PyJWTError as error:
            return f"bad client assertion: {error}"
        if claims.get("sub") != self.client_id:
            return "sub is not the client id"
        with self.lock:
            if claims.get("jti") in self.used_jti:
                return "jti replayed"
            self.used_jti.add(claims.get("jti"))
        return None


def _handler(lms: EmulatedLMS):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):      # quiet: the tests assert on state, not on the log
            pass

        def send(self, status: int, body, content_type: str = "application/json", headers: dict | None = None):
            data = (json.dumps(body) if not isinstance(body, (str, bytes)) else body)
            data = data.encode() if isinstance(data, str) else data
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def injected(self, kind: str) -> bool:
            """Apply a failure rule for this kind of request; True when the request was answered."""
            rule = None
            with lms.lock:       # every rule counts the requests of its kind; the first one due fires
                lms.counts[kind] = lms.counts.get(kind, 0) + 1
                for candidate in lms.rules:
                    if candidate.kind != kind or candidate.times <= 0:
                        continue
                    if candidate.after > 0:
                        candidate.after -= 1
                    elif rule is None:
                        rule = candidate
                        rule.times -= 1
            if rule is None:
                return False
            if rule.action == "revoke":
                lms.revoke_tokens()
                return False
            if rule.action == "hang":
                lms.release.wait(lms.hang_s)
                self.close_connection = True
                return True
            self.send(rule.status, {"error": "server_error", "error_description": f"injected {rule.status}"})
            return True

        def body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def bearer(self, scope: str) -> bool:
            token = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            with lms.lock:
                scopes, expires = lms.tokens.get(token, (set(), 0))
                ok = token not in lms.revoked and expires > time.time() and scope in scopes
            if not ok:
                self.send(401, {"error": "invalid_token"})
            return ok

        # -- routes ---------------------------------------------------------------------------------
        def do_GET(self):
            url = urlparse(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            if url.path == "/jwks":
                return self.injected("jwks") or self.send(200, lms.jwks())
            if url.path == "/auth":
                return self.injected("auth") or self.authorize(query)
            found = re.fullmatch(r"/course/([^/]+)", url.path)
            if found:
                return self.course_link(found.group(1))
            found = re.fullmatch(r"/link/([^/]+)/([^/]+)", url.path)
            if found:
                return self.course_link(found.group(2), link=found.group(1))
            found = re.fullmatch(r"/nrps/([^/]+)", url.path)
            if found:
                return self.injected("nrps") or self.memberships(found.group(1), query)
            found = re.fullmatch(r"/ags/([^/]+)/lineitems(?:/(\d+)(/results)?)?", url.path)
            if found:
                return self.injected("lineitems") or self.get_lineitems(found, query)
            self.send(404, {"error": "not found"})

        def do_POST(self):
            url = urlparse(self.path)
            if url.path == "/token":
                return self.injected("token") or self.token(parse_qs(self.body().decode()))
            if re.fullmatch(r"/ags/([^/]+)/lineitems", url.path):
                return self.injected("lineitems") or self.create_lineitem()
            found = re.fullmatch(r"/ags/([^/]+)/lineitems/(\d+)/scores", url.path)
            if found:
                body = self.body()
                return self.injected("scores") or self.score(int(found.group(2)), body)
            if url.path == "/auth":
                return self.injected("auth") or self.authorize({k: v[0] for k, v in parse_qs(self.body().decode()).items()})
            if url.path == "/deeplink-return":
                return self.deep_link_return({k: v[0] for k, v in parse_qs(self.body().decode()).items()})
            self.send(404, {"error": "not found"})

        def authorize(self, query: dict):
            """OIDC: check the tool's authentication request, then post the id_token to its redirect_uri."""
            problems = [name for name, want in (("response_type", "id_token"), ("scope", "openid"),
                                                ("response_mode", "form_post"), ("prompt", "none"),
                                                ("client_id", lms.client_id)) if query.get(name) != want]
            person = lms.people.get(query.get("login_hint", ""))
            redirect = query.get("redirect_uri", "")
            if lms.redirect_uris and redirect not in lms.redirect_uris:
                problems.append(f"redirect_uri {redirect!r} is not registered")
            if problems or person is None or not query.get("nonce"):
                return self.send(400, f"<p>bad authentication request: {html.escape(str(problems or 'login_hint/nonce'))}</p>",
                                 "text/html")
            message = json.loads(query.get("lti_message_hint") or "{}")
            token = lms.id_token(person, query["nonce"], message.get("target", redirect),
                                 message.get("message_type", "LtiResourceLinkRequest"), message.get("link", "course-nav"))
            fields = {"id_token": token, "state": query.get("state", "")}
            inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items())
            page = (f'<html><body onload="document.forms[0].submit()"><form method="post" action="{html.escape(redirect)}">'
                    f'{inputs}<noscript><button>Continue</button></noscript></form></body></html>')
            self.send(200, page, "text/html")

        def course_link(self, user_id: str, link: str = ""):
            """A person clicking the course (or an assignment `link` of it) in the LMS: third-party-initiated
            login at the tool; the hint brings the link back to the auth endpoint, as Canvas's does."""
            fields = {"iss": lms.issuer, "login_hint": user_id, "target_link_uri": lms.tool_target,
                      "client_id": lms.client_id, "lti_deployment_id": lms.deployment_id}
            if link:
                fields["lti_message_hint"] = json.dumps({"link": link})
            inputs = "".join(f'<input type="hidden" name="{k}" value="{html.escape(v)}">' for k, v in fields.items())
            self.send(200, f'<html><body onload="document.forms[0].submit()"><form method="post" '
                           f'action="{html.escape(lms.tool_login_url)}">{inputs}</form></body></html>', "text/html")

        def deep_link_return(self, form: dict):
            """The tool's signed LtiDeepLinkingResponse: verified, then each resource link (and its line item) made."""
            try:
                signed = form["JWT"]
                kid = jwt.get_unverified_header(signed).get("kid")
                jwk = next(k for k in lms._tool_keys()["keys"] if k.get("kid") == kid)
                claims = jwt.decode(signed, jwt.algorithms.RSAAlgorithm.from_jwk(json.dumps(jwk)), algorithms=["RS256"],
                                    audience=lms.issuer, issuer=lms.client_id)
            except (KeyError, StopIteration, jwt.PyJWTError) as error:
                return self.send(400, f"<p>bad deep linking response: {html.escape(repr(error))}</p>", "text/html")
            if claims.get(LTI + "message_type") != "LtiDeepLinkingResponse" or \
                    claims.get(LTI + "deployment_id") != lms.deployment_id or claims.get(DL + "data") != "dl-data-1":
                return self.send(400, "<p>not a deep linking response for this request</p>", "text/html")
            for item in claims.get(DL + "content_items", []):
                with lms.lock:
                    link = {**item, "id": f"assignment-{len(lms.links) + 1}"}
                    lms.links.append(link)
                    if item.get("lineItem"):
                        number = len(lms.lineitems) + 1
                        lms.lineitems[number] = {**item["lineItem"], "resourceLinkId": link["id"],
                                                 "id": f"{lms.url}/ags/{lms.context_id}/lineitems/{number}"}
            self.send(200, f"<p>{len(claims.get(DL + 'content_items', []))} assignment(s) added</p>", "text/html")

        def token(self, form: dict):
            get = {k: v[0] for k, v in form.items()}
            if get.get("grant_type") != "client_credentials" or get.get("client_assertion_type") != \
                    "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
                return self.send(400, {"error": "unsupported_grant_type"})
            problem = lms.check_assertion(get.get("client_assertion", ""))
            if problem:
                return self.send(401, {"error": "invalid_client", "error_description": problem})
            scopes = set(get.get("scope", "").split()) & SCOPES
            token = secrets.token_urlsafe(24)
            with lms.lock:
                lms.tokens[token] = (scopes, time.time() + 3600)
            self.send(200, {"access_token": token, "token_type": "Bearer", "expires_in": 3600, "scope": " ".join(sorted(scopes))})

        def memberships(self, context: str, query: dict):
            if not self.bearer("https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"):
                return
            if context != lms.context_id:
                return self.send(404, {"error": "no such context"})
            people = sorted(lms.people.values(), key=lambda p: p.user_id)
            start = int(query.get("page", 0)) * PAGE
            members = [{"user_id": p.user_id, "name": p.name, "email": p.email, "status": p.status, "roles": list(p.roles),
                        "message": [{LTI + "custom": {"username": p.username}}]} for p in people[start:start + PAGE]]
            headers = {}
            if start + PAGE < len(people):
                headers["Link"] = f'<{lms.url}/nrps/{context}?{urlencode({"page": int(query.get("page", 0)) + 1})}>; rel="next"'
            self.send(200, {"id": f"{lms.url}/nrps/{context}", "context": {"id": context}, "members": members},
                      "application/vnd.ims.lti-nrps.v2.membershipcontainer+json", headers)

        def get_lineitems(self, found, query: dict):
            if not (self.token_has("lineitem.readonly") or self.token_has("lineitem")):
                return self.send(401, {"error": "invalid_token"})
            number, results = found.group(2), found.group(3)
            if number is None:
                items = [li for li in lms.lineitems.values()
                         if all(li.get(k) == query[q] for q, k in (("tag", "tag"), ("resource_id", "resourceId"),
                                                                    ("resource_link_id", "resourceLinkId")) if q in query)]
                return self.send(200, items, "application/vnd.ims.lis.v2.lineitemcontainer+json")
            item = lms.lineitems.get(int(number))
            if item is None:
                return self.send(404, {"error": "no such line item"})
            if results:
                rows = [{"userId": user, "resultScore": s["scoreGiven"], "resultMaximum": s["scoreMaximum"],
                         "comment": s.get("comment")} for (n, user), s in lms.results.items() if n == int(number)]
                return self.send(200, rows, "application/vnd.ims.lis.v2.resultcontainer+json")
            self.send(200, item, "application/vnd.ims.lis.v2.lineitem+json")

        def token_has(self, suffix: str) -> bool:
            token = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            with lms.lock:
                scopes, expires = lms.tokens.get(token, (set(), 0))
                return token not in lms.revoked and expires > time.time() and \
                    f"https://purl.imsglobal.org/spec/lti-ags/scope/{suffix}" in scopes

        def create_lineitem(self):
            if not self.token_has("lineitem"):
                return self.send(401, {"error": "invalid_token"})
            item = json.loads(self.body() or b"{}")
            if not isinstance(item.get("scoreMaximum"), (int, float)) or item["scoreMaximum"] <= 0 or not item.get("label"):
                return self.send(400, {"error": "a line item needs a label and a positive scoreMaximum"})
            with lms.lock:
                number = len(lms.lineitems) + 1
                item["id"] = f"{lms.url}/ags/{lms.context_id}/lineitems/{number}"
                lms.lineitems[number] = item
            self.send(201, item, "application/vnd.ims.lis.v2.lineitem+json")

        def score(self, number: int, raw: bytes):
            if not self.token_has("score"):
                return self.send(401, {"error": "invalid_token"})
            if self.headers.get("Content-Type", "").split(";")[0] != "application/vnd.ims.lis.v1.score+json":
                return self.send(415, {"error": "scores are application/vnd.ims.lis.v1.score+json"})
            if number not in lms.lineitems:
                return self.send(404, {"error": "no such line item"})
            score = json.loads(raw or b"{}")
            missing = [k for k in ("userId", "activityProgress", "gradingProgress", "timestamp") if k not in score]
            if missing or score.get("userId") not in lms.people:
                return self.send(400, {"error": f"bad score: missing {missing}" if missing else "userId not in the course"})
            if "scoreGiven" in score and not 0 <= score["scoreGiven"] <= score.get("scoreMaximum", -1) * 10:
                return self.send(400, {"error": "scoreGiven out of range"})
            with lms.lock:
                lms.results[(number, score["userId"])] = score
                lms.posts.append((number, score))
            self.send(204, b"", "text/plain")

    return Handler
