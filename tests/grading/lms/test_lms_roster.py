"""Passback's roster from the LMS's Names and Roles (autograder/lms/passback.py `roster`), read over real
HTTP from the emulated LMS: two members whose username claims map to one course account are never
resolved by keeping one (a grade could go to the wrong person), and who counts as a learner is the hub's
rule (coursekit/app/lti/roles.py)."""
from __future__ import annotations

import json

import pytest
from lms_emulator import EmulatedLMS

from autograder.lms.passback import roster
from coursekit.app.lti import keys
from coursekit.app.lti.client import LmsClient
from coursekit.app.lti.platform import load_platform

TA = "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"
LEARNER_SUB = "http://purl.imsglobal.org/vocab/lis/v2/membership/Learner#NonCreditLearner"


@pytest.fixture
def lms_client(tmp_path):
    tool_keys = tmp_path / "lti" / "tool-keys.json"
    keys.ensure(tool_keys)
    lms = EmulatedLMS(tool_jwks=lambda: keys.public_jwks(keys.load(tool_keys))).start()
    settings = tmp_path / "platform.json"
    settings.write_text(json.dumps(lms.platform_settings(context_id=lms.context_id)))
    platform = load_platform(settings)
    try:
        yield lms, LmsClient(platform, tool_keys), platform
    finally:
        lms.stop()


def test_two_members_mapping_to_one_name_are_refused_naming_both_never_overwritten(lms_client):
    lms, client, platform = lms_client
    lms.enrol("ada@uni.example", name="Ada Lovelace", user_id="u-ada-1")
    lms.enrol("ADA@gmail.example", name="Ada Impostor", user_id="u-ada-2")
    lms.enrol("bob", user_id="u-bob")
    names, learners, notes, ambiguous = roster(client, platform)
    assert names == {"bob": "u-bob"}                   # neither Ada gets anyone's grade
    assert "ada" in learners and "ada" in ambiguous     # still listed, so passback reports it as failed
    why = ambiguous["ada"]
    for shown in ("Ada Lovelace", "u-ada-1", "Ada Impostor", "u-ada-2", "'ada'"):
        assert shown in why, why
    assert any("Ada Lovelace" in note and "Ada Impostor" in note for note in notes)


def test_learners_are_the_hubs_learners_tas_are_not_and_learner_sub_roles_are(lms_client):
    lms, client, platform = lms_client
    lms.enrol("amy", user_id="u-amy")
    lms.enrol("nia", user_id="u-nia").roles = (LEARNER_SUB,)
    lms.enrol("tia", role="Instructor", user_id="u-tia").roles += (TA,)
    lms.enrol("ted", role="Instructor", user_id="u-ted")
    names, learners, notes, ambiguous = roster(client, platform)
    assert learners == {"amy", "nia"} and not ambiguous and not notes
    assert set(names) == {"amy", "nia", "tia", "ted"}
