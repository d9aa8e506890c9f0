"""Every bank in quizzes/ passes the validator and self-test; fixture banks prove the checks bite."""
from __future__ import annotations

from pathlib import Path

import pytest

from coursekit.quiz import check_banks, load_all_banks, load_bank
from coursekit.quiz.bank import BankError, bank_files, resolve_bank, scan_banks
from coursekit.app.quiz_cli import register
from paths import ROOT, TESTS

QUIZZES = ROOT / "quizzes"
FIXTURES = TESTS / "fixtures" / "quiz"
REAL_BANKS = bank_files(QUIZZES)


@pytest.fixture(scope="module")
def real_problems():
    return check_banks(QUIZZES)


def test_course_has_banks(real_problems):
    assert REAL_BANKS, f"no bank files under {QUIZZES}: module authors add quizzes/mN/*.yaml"
    unattributed = [p for p in real_problems if Path(p.file).resolve() not in {b.resolve() for b in REAL_BANKS}]
    assert not unattributed, "\n".join(map(str, unattributed))


@pytest.mark.parametrize("path", REAL_BANKS, ids=[p.relative_to(QUIZZES).as_posix() for p in REAL_BANKS])
def test_real_bank_passes_check(path, real_problems):
    # Cross-bank problems (duplicate ids, include, module-test pool size) are attributed to a file too,
    # so each bank's test shows exactly its own problems.
    problems = [p for p in real_problems if Path(p.file).resolve() == path.resolve()]
    assert not problems, "\n".join(map(str, problems))


def test_fixture_banks_pass():
    assert check_banks(FIXTURES / "good") == []
    banks = load_all_banks(FIXTURES / "good")
    assert set(banks) == {"m9-l1", "m9-module-test"}
    assert banks["m9-module-test"].pass_mark == 0.8


EXPECTED = {  # item id -> words its problem message must contain
    "m9-bad-missing-fn": "no_such_function",
    "m9-bad-placeholder": "{nope}",
    "m9-bad-two-correct": "exactly one correct option, found 2",
    "m9-bad-no-feedback": "has no 'feedback'",
    "m9-bad-mistake": "within tolerance of the answer",
    "m9-bad-one-variant": "same parameters",
    "m9-bad-outside": "outside coursekit",
    "m9-bad-typed": "never typed",
    "m9-bad-no-source": "missing 'source'",
}


def test_broken_fixture_problems_name_file_item_and_fault():
    problems = check_banks(FIXTURES / "broken")
    by_item = {}
    for p in problems:
        by_item.setdefault(p.item, []).append(p)
    for item, words in EXPECTED.items():
        found = by_item.get(item, [])
        assert found, f"no problem reported for {item}; got {problems}"
        assert all(p.file.endswith("broken/m9/l1-broken.yaml") for p in found)
        assert any(words in p.message for p in found), (item, [p.message for p in found])
    assert len(by_item["m9-bad-typed"]) == 1, "a schema fault must not also be reported by the self-test"
    yaml_problem = [p for p in problems if p.file.endswith("bad-yaml.yaml")]
    assert yaml_problem and "not valid YAML at line 5" in yaml_problem[0].message


def test_load_bank_raises_with_every_problem():
    with pytest.raises(BankError) as info:
        load_bank(FIXTURES / "broken" / "m9" / "l1-broken.yaml")
    text = str(info.value)
    assert "l1-broken.yaml: m9-bad-two-correct" in text and "l1-broken.yaml: m9-bad-typed" in text


def test_cross_bank_problems(tmp_path):
    good = (FIXTURES / "good" / "m9" / "l1-fixture.yaml").read_text()
    (tmp_path / "a.yaml").write_text(good)
    (tmp_path / "b.yaml").write_text(good.replace("id: m9-l1\n", "id: m9-l1-copy\n", 1))
    (tmp_path / "mt.yaml").write_text("id: m9-mt\ntitle: t\nmodule: m9\nkind: module-test\nshow: 15\n"
                                      "pass_mark: 0.8\ninclude: [m9-l1, m9-nope]\nitems: []\n")
    messages = [str(p) for p in check_banks(tmp_path)]
    assert any("b.yaml: m9-l1-kv: item id is also used in" in m for m in messages), messages
    assert any("include names unknown bank 'm9-nope'" in m for m in messages), messages
    assert any("module test pool needs at least 25" in m for m in messages), messages


def _run_cli(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="course")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.handler(args)


def test_cli_check(capsys):
    assert _run_cli(["quiz", "check", "--root", str(FIXTURES / "good")]) == 0
    assert "all 25 items pass" in capsys.readouterr().out
    assert _run_cli(["quiz", "check", "--root", str(FIXTURES / "broken")]) == 1
    out = capsys.readouterr().out
    assert "l1-broken.yaml: m9-bad-missing-fn: function 'no_such_function' not found" in out


def test_course_banks_right_answer_feedback_does_not_repeat_the_verdict():
    """Both front ends head right-answer feedback with "Correct."; the course's own banks never follow it
    with "Right." (the website shows bank text as written)."""
    from coursekit.quiz.widgets import REPEATED_VERDICT

    repeated = []
    for bank in load_all_banks(QUIZZES).values():
        for item in bank.items:
            texts = [o.feedback for o in item.options if o.correct] if item.type == "single" else []
            texts.append((item.feedback or {}).get("correct", ""))
            repeated += [f"{bank.id}/{item.id}: {t!r}" for t in texts if REPEATED_VERDICT.match(t)]
    assert not repeated, "\n".join(repeated)


def _module_test(formerly: str, bank_id: str = "m9-module-test") -> str:
    """The good fixture's module test with another id and a 'formerly' line (YAML text)."""
    text = (FIXTURES / "good" / "m9" / "module-test.yaml").read_text()
    return text.replace("id: m9-module-test\n", f"id: {bank_id}\nformerly: {formerly}\n", 1)


def test_a_renamed_bank_answers_to_its_former_id(tmp_path):
    (tmp_path / "l1.yaml").write_text((FIXTURES / "good" / "m9" / "l1-fixture.yaml").read_text())
    (tmp_path / "mt.yaml").write_text(_module_test("[m9-module-test, m9-mt-2024]", "m9-test"))
    banks = load_all_banks(tmp_path)
    assert banks["m9-test"].formerly == ("m9-module-test", "m9-mt-2024")
    assert resolve_bank(banks, "m9-module-test") is banks["m9-test"] is resolve_bank(banks, "m9-test")
    assert resolve_bank(banks, "m9-l1") is banks["m9-l1"] and resolve_bank(banks, "m9-nope") is None


def test_a_former_id_leads_to_one_bank_only(tmp_path, monkeypatch):
    """A former id that is another bank's id, or that two banks list, is refused, naming both files."""
    monkeypatch.chdir(tmp_path)     # files are named relative to here, as an author checking a folder sees them
    (tmp_path / "l1.yaml").write_text((FIXTURES / "good" / "m9" / "l1-fixture.yaml").read_text())
    (tmp_path / "a.yaml").write_text(_module_test("[m9-l1, m9-old]", "m9-a"))
    (tmp_path / "b.yaml").write_text(_module_test("[m9-old]", "m9-b").replace("id: m9-mt-", "id: m9-b-mt-"))
    messages = [str(p) for p in scan_banks(tmp_path)[1]]
    assert any(m.startswith("a.yaml: former id 'm9-l1' is the id of l1.yaml") for m in messages), messages
    assert any(m.startswith("b.yaml: former id 'm9-old' is also listed by a.yaml") for m in messages), messages
    (tmp_path / "b.yaml").write_text(_module_test("m9-old", "m9-b").replace("id: m9-mt-", "id: m9-b-mt-"))
    (tmp_path / "l1.yaml").write_text((FIXTURES / "good" / "m9" / "l1-fixture.yaml").read_text()
                                      .replace("kind: lesson-quiz\n", "kind: lesson-quiz\nformerly: [m9-x]\n"))
    messages = [str(p) for p in scan_banks(tmp_path)[1]]
    assert "b.yaml: 'formerly' must be a list of the ids this bank had before, e.g. [m1-module-test]; " \
           "got 'm9-old'" in messages, messages
    assert "l1.yaml: 'formerly' is for module tests only" in messages, messages

