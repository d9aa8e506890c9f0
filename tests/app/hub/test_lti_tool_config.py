"""The admin's first LMS step, `course hub lti-tool-config --public-url URL` (coursekit/app/hub/lti/toolconfig.py):
the tool's URLs and Canvas's JSON at the public address, needing nothing from the LMS; and the address the
hub advertises: a configured public URL wins over any forwarded header, else a TLS proxy's forwarded
headers, else the request's own. The served /hub/lti/config behind a proxy: tests/app/hub/test_hub_lti.py."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

from coursekit.app.hub.lti.auth import ClassAuthenticator

PUBLIC = "https://hub.example.edu"


def tool_config(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from coursekit.app.cli import main; sys.exit(main())",
                           "hub", "lti-tool-config", *args],
                          capture_output=True, text=True, timeout=120, check=False)


def test_the_first_step_prints_every_url_and_canvas_json_at_the_public_address():
    done = tool_config("--public-url", "https://Hub.Example.edu/")
    assert done.returncode == 0, done.stderr
    for what, path in (("login initiation", "lti13/oauth_login"), ("redirect URI", "lti13/oauth_callback"),
                       ("target link (launch)", "spawn"), ("public key set (JWKS)", "lti/jwks")):
        assert any(line.split() and what in line and line.endswith(f"{PUBLIC}/hub/{path}")
                   for line in done.stdout.splitlines()), (what, done.stdout)
    start, end = done.stdout.index("\n{"), done.stdout.index("\n}\n")
    canvas = json.loads(done.stdout[start:end + 2])
    assert canvas["oidc_initiation_url"] == f"{PUBLIC}/hub/lti13/oauth_login"
    assert canvas["redirect_uris"] == [f"{PUBLIC}/hub/lti13/oauth_callback"]
    assert canvas["public_jwk_url"] == f"{PUBLIC}/hub/lti/jwks" and canvas["target_link_uri"] == f"{PUBLIC}/hub/spawn"
    assert canvas["custom_fields"] == {"username": "$Canvas.user.loginId"}
    assert "127.0.0.1" not in done.stdout and "warning" not in done.stdout
    assert "context_id" in done.stdout and f"--public-url {PUBLIC}" in done.stdout


def test_an_http_address_is_warned_about_and_a_bad_one_refused():
    assert "warning: LTI 1.3 needs https" in tool_config("--public-url", "http://hub.example.edu").stdout
    for bad, says in (("", "give the address"), ("hub.example.edu", "give the address"),
                      (f"{PUBLIC}/course", "no path"), ("ftp://hub.example.edu", "give the address")):
        done = tool_config("--public-url", bad) if bad else tool_config()
        assert done.returncode == 1 and says in done.stderr and not done.stdout, (bad, done.stderr)


def request(host: str, **headers) -> HTTPServerRequest:
    return HTTPServerRequest(start_line=RequestStartLine("GET", "/hub/lti/config", "HTTP/1.1"),
                             headers=HTTPHeaders({"Host": host, **headers}))


@pytest.mark.parametrize("public_url, headers, origin", [
    ("", {}, "http://127.0.0.1:8000"),
    ("", {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "hub.example.edu"}, PUBLIC),
    ("", {"X-Forwarded-Proto": "https,http", "X-Forwarded-Host": "hub.example.edu, 127.0.0.1:8000"}, PUBLIC),
    (PUBLIC, {}, PUBLIC),
    (PUBLIC, {"X-Forwarded-Proto": "http", "X-Forwarded-Host": "evil.example"}, PUBLIC),
])
def test_the_advertised_origin(public_url, headers, origin):
    auth = ClassAuthenticator(public_url=public_url)
    assert auth.origin(request("127.0.0.1:8000", **headers)) == origin
    assert auth.get_uri_scheme(request("127.0.0.1:8000", **headers)) == origin.split(":")[0]
