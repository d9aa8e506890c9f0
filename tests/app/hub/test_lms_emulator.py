"""The emulated LMS (tests/lms_emulator.py) behaves as an LTI 1.3 platform: what the LTI tests rely on."""
from __future__ import annotations

import html
import json
import re
import time
import uuid

import jwt
import pytest
import requests
from lms_emulator import EmulatedLMS

from coursekit.app.lti import keys


@pytest.fixture
def tool_keys(tmp_path):
    return keys.ensure(tmp_path / "lti" / "tool-keys.json")[0]


@pytest.fixture
def lms(tool_keys):
    running = EmulatedLMS(tool_jwks=lambda: keys.public_jwks(tool_keys)).start()
    yield running
    running.stop()


def assertion(lms, tool_keys, **changes) -> str:
    kid, pem = keys.current(tool_keys)
    now = int(time.time())
    claims = {"iss": lms.client_id, "sub": lms.client_id, "aud": f"{lms.url}/token", "iat": now, "exp": now + 60,
              "jti": uuid.uuid4().hex, **changes}
    return jwt.encode(claims, pem, algorithm="RS256", headers={"kid": kid})


def token(lms, signed: str, scope: str = "https://purl.imsglobal.org/spec/lti-ags/scope/score") -> requests.Response:
    return requests.post(f"{lms.url}/token", timeout=10, data={
        "grant_type": "client_credentials", "client_assertion": signed, "scope": scope,
        "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"})


def test_the_oidc_endpoint_posts_back_an_id_token_signed_with_the_platform_key_set(lms):
    ada = lms.enrol("ada")
    page = requests.get(f"{lms.url}/auth", timeout=10, params={
        "response_type": "id_token", "scope": "openid", "response_mode": "form_post", "prompt": "none",
        "client_id": lms.client_id, "redirect_uri": "http://127.0.0.1:9/hub/lti/launch", "login_hint": ada.user_id,
        "nonce": "n-1", "state": "s-1"})
    assert page.status_code == 200
    assert 'action="http://127.0.0.1:9/hub/lti/launch"' in page.text
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', page.text))
    assert fields["state"] == "s-1"
    signed = html.unescape(fields["id_token"])
    key_set = jwt.PyJWKSet.from_dict(requests.get(f"{lms.url}/jwks", timeout=10).json())
    kid = jwt.get_unverified_header(signed)["kid"]
    claims = jwt.decode(signed, key_set[kid].key, algorithms=["RS256"], audience=lms.client_id, issuer=lms.issuer)
    assert claims["nonce"] == "n-1" and claims["sub"] == ada.user_id
    assert claims["https://purl.imsglobal.org/spec/lti/claim/custom"]["username"] == "ada"
    assert claims["https://purl.imsglobal.org/spec/lti/claim/deployment_id"] == lms.deployment_id
    # a request that is not an LTI authentication request gets no token
    bad = requests.get(f"{lms.url}/auth", timeout=10, params={"client_id": "other", "login_hint": ada.user_id, "nonce": "x"})
    assert bad.status_code == 400 and "id_token" not in bad.text


def test_the_token_endpoint_takes_only_an_assertion_signed_with_a_key_of_the_tools_key_set(lms, tool_keys, tmp_path):
    good = token(lms, assertion(lms, tool_keys))
    assert good.status_code == 200 and good.json()["scope"] == "https://purl.imsglobal.org/spec/lti-ags/scope/score"
    assert token(lms, assertion(lms, tool_keys, jti="same")).status_code == 200
    assert "jti replayed" in token(lms, assertion(lms, tool_keys, jti="same")).text
    other = keys.ensure(tmp_path / "other.json")[0]       # a key the LMS was never given, under the tool's kid
    forged = jwt.encode(jwt.decode(assertion(lms, tool_keys), options={"verify_signature": False}),
                        keys.current(other)[1], algorithm="RS256", headers={"kid": keys.current(tool_keys)[0]})
    refused = token(lms, forged)
    assert refused.status_code == 401 and "Signature verification failed" in refused.json()["error_description"]
    assert token(lms, assertion(lms, tool_keys, aud="http://elsewhere/token")).status_code == 401


def test_scores_need_a_token_with_the_score_scope_and_a_revoked_token_is_refused(lms, tool_keys):
    ada = lms.enrol("ada")
    access = token(lms, assertion(lms, tool_keys), scope=" ".join([
        "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
        "https://purl.imsglobal.org/spec/lti-ags/scope/score"])).json()["access_token"]
    auth = {"Authorization": f"Bearer {access}"}
    item = requests.post(f"{lms.url}/ags/{lms.context_id}/lineitems", headers=auth, timeout=10,
                         json={"label": "Lab 1", "scoreMaximum": 6, "tag": "lab1"}).json()
    score = {"userId": ada.user_id, "scoreGiven": 5, "scoreMaximum": 6, "activityProgress": "Completed",
             "gradingProgress": "FullyGraded", "timestamp": "2026-11-27T10:00:00Z"}
    posted = requests.post(item["id"] + "/scores", data=json.dumps(score), timeout=10,
                           headers={**auth, "Content-Type": "application/vnd.ims.lis.v1.score+json"})
    assert posted.status_code == 204 and lms.score_of("lab1", "ada")["scoreGiven"] == 5
    lms.revoke_tokens()
    again = requests.post(item["id"] + "/scores", data=json.dumps(score), timeout=10,
                          headers={**auth, "Content-Type": "application/vnd.ims.lis.v1.score+json"})
    assert again.status_code == 401 and len(lms.posts) == 1


def test_injected_failures_answer_the_next_requests_then_stop(lms):
    lms.fail("jwks", status=503, times=2, after=1)
    codes = [requests.get(f"{lms.url}/jwks", timeout=10).status_code for _ in range(4)]
    assert codes == [200, 503, 503, 200]
    lms.hang_s = 5
    lms.hang("jwks")
    with pytest.raises(requests.Timeout):
        requests.get(f"{lms.url}/jwks", timeout=0.5)
