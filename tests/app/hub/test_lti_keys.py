"""The tool's key set and the LMS's settings file: private key kept private, rotation, clear refusals."""
from __future__ import annotations

import json
import os
import stat

import jwt
import pytest

from coursekit.app.lti import keys
from coursekit.app.lti.names import LtiNameError, unix_name
from coursekit.app.lti.platform import PlatformError, load_platform


def test_the_key_set_is_made_private_and_serves_only_public_halves(tmp_path):
    path = tmp_path / "course" / "lti" / "tool-keys.json"
    data, made = keys.ensure(path)
    assert made and keys.ensure(path) == (data, False)          # a second call keeps the same key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    served = keys.public_jwks(data)
    assert [k["kid"] for k in served["keys"]] == [data["current"]]
    assert not {"d", "p", "q", "dp", "dq", "qi"} & set(served["keys"][0])      # no private parameter
    kid, pem = keys.current(data)
    signed = jwt.encode({"x": 1}, pem, algorithm="RS256", headers={"kid": kid})
    public = jwt.PyJWKSet.from_dict(served)[kid].key
    assert jwt.decode(signed, public, algorithms=["RS256"]) == {"x": 1}


def test_rotation_signs_with_a_new_key_and_keeps_the_old_one_in_the_key_set(tmp_path):
    path = tmp_path / "tool-keys.json"
    old = keys.ensure(path)[0]["current"]
    rotated = keys.rotate(path)
    assert rotated["current"] != old
    assert [k["kid"] for k in keys.public_jwks(rotated)["keys"]] == [rotated["current"], old]
    third = keys.rotate(path)
    assert [k["kid"] for k in third["keys"]] == [third["current"], rotated["current"]]     # the oldest retires
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_key_file_others_can_read_is_refused_with_the_fix(tmp_path):
    path = tmp_path / "tool-keys.json"
    keys.ensure(path)
    os.chmod(path, 0o644)
    with pytest.raises(keys.ToolKeyError, match=rf"{path}: mode 644 lets others read .*`chmod 600"):
        keys.load(path)
    with pytest.raises(keys.ToolKeyError, match="no tool key set; make one with `autograder lms keys`"):
        keys.load(tmp_path / "missing.json")


GOOD = {"issuer": "https://lms.example", "client_id": "c1", "deployment_id": "d1",
        "auth_login_url": "https://lms.example/auth", "auth_token_url": "https://lms.example/token",
        "key_set_url": "https://lms.example/jwks"}


@pytest.mark.parametrize("change, message", [
    ({"client_id": ""}, "missing client_id: copy them from the LMS's registration"),
    ({"key_set_url": "lms.example/jwks"}, "key_set_url 'lms.example/jwks' is not an http(s) URL"),
    ({"client_secret": "x"}, "unknown setting(s) client_secret"),
    ({"timeout_s": "soon"}, "timeout_s must be a number"),
])
def test_bad_platform_settings_are_refused_naming_the_file_and_field(tmp_path, change, message):
    path = tmp_path / "platform.json"
    path.write_text(json.dumps({**GOOD, **change}))
    with pytest.raises(PlatformError) as error:
        load_platform(path)
    assert str(error.value).startswith(str(path)) and message in str(error.value)
    path.write_text("{not json")
    with pytest.raises(PlatformError, match="not JSON"):
        load_platform(path)


def test_the_unix_name_comes_from_the_documented_claim_or_the_launch_is_refused():
    custom = "https://purl.imsglobal.org/spec/lti/claim/custom#username"
    token = {"sub": "u-1", "email": "Ada.L@uni.example", "https://purl.imsglobal.org/spec/lti/claim/custom": {"username": "Ada"}}
    assert unix_name(token, custom) == "ada"
    assert unix_name({"sub": "u-1", "email": "ada_l@uni.example"}, "email") == "ada_l"
    member = {"user_id": "u-1", "message": [{"https://purl.imsglobal.org/spec/lti/claim/custom": {"username": "ben"}}]}
    assert unix_name(member, custom) == "ben"                        # an NRPS member carries it in `message`
    with pytest.raises(LtiNameError, match="sent no .* for this person"):
        unix_name({"sub": "u-2"}, custom)
    with pytest.raises(LtiNameError, match="'../root' is not a usable Unix name"):
        unix_name({"sub": "u-3", "https://purl.imsglobal.org/spec/lti/claim/custom": {"username": "../root"}}, custom)


@pytest.mark.parametrize("args, settings, message", [
    ((), None, "give --roster CSV, --lti-config FILE, or both"),
    (("--lti-config", "{settings}", "--public-url", "hub.example.edu"), GOOD, "give the address the LMS and browsers"),
    (("--lti-config", "{settings}"), {**GOOD, "issuer": ""}, "missing issuer"),
])
def test_course_hub_refuses_missing_or_incomplete_lti_settings_before_touching_anything(tmp_path, args, settings, message):
    import subprocess
    import sys

    path = tmp_path / "platform.json"
    if settings is not None:
        path.write_text(json.dumps(settings))
    done = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "hub", "--data", str(tmp_path / "data"),
                           *[a.format(settings=path) for a in args]], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and message in done.stderr, done.stderr
    assert not (tmp_path / "data").exists()
