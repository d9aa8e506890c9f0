"""The tool's client for the LMS's services, on PyLTI1p3 (`autograder lms post`, the hub's roster sync):
the OAuth2 client-credentials token flow (a JWT assertion signed with the tool's current key), AGS line
items and scores, NRPS memberships.

What it adds to PyLTI1p3: a timeout on every request (a stalled LMS must not hang the passback), a
fresh token once when the LMS says a cached one is no longer valid (revoked, expired), and failures
turned into one short reason a person can act on.
"""
from __future__ import annotations

import json

import requests

from coursekit.app.lti import keys as tool_keys
from coursekit.app.lti.claims import (
    LINEITEM,
    LINEITEM_READONLY,
    NRPS_SCOPE,
    RESULT_READONLY,
    SCORE,
)
from coursekit.app.lti.platform import Platform

AGS_SCOPES = [LINEITEM, LINEITEM_READONLY, RESULT_READONLY, SCORE]


class LmsError(RuntimeError):
    """A request to the LMS failed; `reason` says how, `transient` whether a later run may succeed."""

    def __init__(self, reason: str, transient: bool = True):
        super().__init__(reason)
        self.reason = reason
        self.transient = transient


class _TimeoutSession(requests.Session):
    def __init__(self, timeout: float):
        super().__init__()
        self.timeout = timeout
        self.headers["User-Agent"] = "llm-course-autograder (PyLTI1p3)"

    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", self.timeout)
        return super().request(*args, **kwargs)


def _reason(error: Exception) -> LmsError:
    from pylti1p3.exception import LtiServiceException

    if isinstance(error, LtiServiceException):
        response = error.response
        try:
            detail = response.json()
            detail = detail.get("error_description") or detail.get("error") or detail if isinstance(detail, dict) else detail
        except ValueError:
            detail = response.text[:200]
        where = urlpath(response.url)
        return LmsError(f"the LMS answered HTTP {response.status_code} to {where}: {detail}",
                        transient=response.status_code in (401, 408, 429) or response.status_code >= 500)
    if isinstance(error, requests.Timeout):
        return LmsError(f"the LMS did not answer in time ({urlpath(getattr(error.request, 'url', '') or '')})")
    if isinstance(error, requests.ConnectionError):
        return LmsError(f"cannot reach the LMS ({type(error).__name__})")
    return LmsError(f"{type(error).__name__}: {error}", transient=False)


def urlpath(url: str) -> str:
    from urllib.parse import urlparse

    return urlparse(url).path or url


class LmsClient:
    """One connection to the platform for a run (tokens are cached per scope set, as PyLTI1p3 does)."""

    def __init__(self, platform: Platform, keys_file):
        from pylti1p3.registration import Registration
        from pylti1p3.service_connector import ServiceConnector

        kid, private_pem = tool_keys.current(tool_keys.load(keys_file))

        class ToolRegistration(Registration):
            def get_kid(self):          # the kid the served key set names (PyLTI1p3 would derive its own)
                return kid

        registration = (ToolRegistration().set_issuer(platform.issuer).set_client_id(platform.client_id)
                        .set_auth_token_url(platform.auth_token_url).set_key_set_url(platform.key_set_url)
                        .set_tool_private_key(private_pem))
        if platform.auth_audience:
            registration.set_auth_audience(platform.auth_audience)
        self.platform = platform
        self.connector = ServiceConnector(registration, requests_session=_TimeoutSession(platform.timeout_s))

    def _call(self, action):
        """Run `action`; once more with a fresh token when the LMS refuses the cached one (HTTP 401)."""
        from pylti1p3.exception import LtiServiceException

        for attempt in (1, 2):
            try:
                return action()
            except LtiServiceException as error:
                if error.response.status_code == 401 and attempt == 1 and "token" not in urlpath(error.response.url):
                    self.connector._access_tokens.clear()
                    continue
                raise _reason(error) from None
            except Exception as error:      # noqa: BLE001 - timeouts, refused connections, PyLTI1p3's own errors
                raise _reason(error) from None

    def ags(self, lineitem_url: str = ""):
        from pylti1p3.assignments_grades import AssignmentsGradesService

        data = {"scope": AGS_SCOPES, "lineitems": self.platform.lineitems_url}
        if lineitem_url:
            data["lineitem"] = lineitem_url
        return AssignmentsGradesService(self.connector, data)

    def find_lineitem(self, tag: str) -> dict | None:
        if not self.platform.lineitems_url:
            raise LmsError(f"{self.platform.source}: no lineitems_url (the course's AGS line-items URL) and no "
                           f"lineitem_urls entry for {tag!r}", transient=False)
        found = self._call(lambda: self.ags().find_lineitem_by_tag(tag))
        return json.loads(found.get_value()) if found is not None else None

    def create_lineitem(self, tag: str, label: str, maximum: float) -> dict:
        from pylti1p3.lineitem import LineItem

        item = LineItem().set_tag(tag).set_resource_id(tag).set_label(label).set_score_maximum(maximum)
        return json.loads(self._call(lambda: self.ags().find_or_create_lineitem(item)).get_value())

    def post_score(self, lineitem_url: str, score: dict) -> None:
        from pylti1p3.grade import Grade

        grade = (Grade().set_user_id(score["userId"]).set_score_given(score["scoreGiven"])
                 .set_score_maximum(score["scoreMaximum"]).set_activity_progress(score["activityProgress"])
                 .set_grading_progress(score["gradingProgress"]).set_timestamp(score["timestamp"])
                 .set_comment(score["comment"]))
        self._call(lambda: self.ags(lineitem_url).put_grade(grade))

    def members(self) -> list[dict]:
        """Every NRPS member of the course (all pages)."""
        if not self.platform.memberships_url:
            raise LmsError(f"{self.platform.source}: no memberships_url (the course's Names and Roles URL)", transient=False)
        members, url = [], self.platform.memberships_url
        while url:
            page = self._call(lambda: self.connector.make_service_request(
                [NRPS_SCOPE], url, accept="application/vnd.ims.lti-nrps.v2.membershipcontainer+json"))
            body = page["body"] if isinstance(page["body"], dict) else json.loads(page["body"] or "{}")
            members += body.get("members", [])
            url = page["next_page_url"]
        return members
