"""The LTI protocol package (coursekit/app/lti/) is the one home of its facts: the claim and scope URLs
are spelled only in claims.py, the grader's passback imports the protocol without JupyterHub, and one
rule says who is a learner (for the hub's launches and roster sync and for passback alike)."""
from __future__ import annotations

import subprocess
import sys

import pytest
from paths import ROOT

from coursekit.app.lti.claims import MEMBERSHIP
from coursekit.app.lti.roles import course_role, is_learner

TA = f"{MEMBERSHIP}/Instructor#TeachingAssistant"


def test_claim_and_scope_urls_are_spelled_once():
    spelled = [str(path.relative_to(ROOT)) for folder in ("coursekit", "autograder")
               for path in sorted((ROOT / folder).rglob("*.py"))
               if "node_modules" not in path.parts and "purl.imsglobal.org" in path.read_text(encoding="utf-8")]
    assert spelled == ["coursekit/app/lti/claims.py"]


def test_the_grader_imports_the_protocol_without_jupyterhub():
    probe = ("import sys\nimport autograder.lms.passback, autograder.lms.commands\n"
             "import coursekit.app.lti.client, coursekit.app.lti.keys, coursekit.app.lti.names\n"
             "import coursekit.app.lti.platform, coursekit.app.lti.roles, coursekit.app.lti.claims\n"
             "hub = sorted(m for m in sys.modules if m.split('.')[0] in ('jupyterhub', 'tornado', 'ltiauthenticator')"
             " or m.startswith('coursekit.app.hub'))\nprint(hub)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=ROOT,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


@pytest.mark.parametrize("roles, role", [
    (["Learner"], "student"),
    ([f"{MEMBERSHIP}#Learner"], "student"),
    ([f"{MEMBERSHIP}/Learner#NonCreditLearner"], "student"),        # a Learner sub-role is a learner
    ([f"{MEMBERSHIP}#Learner", TA], "ta"),                          # a TA is never a learner, whatever else
    ([f"{MEMBERSHIP}#Instructor", TA], "ta"),
    ([f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}#Learner"], "instructor"),
    (["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"], None),   # not a course role
    ([["Learner"], 3, None], None),
    (None, None),
])
def test_one_rule_says_who_is_a_learner(roles, role):
    assert course_role(roles) == role
    assert is_learner(roles) is (role == "student")
