"""The hint ladder: lab cells show only a call with a prompt id; texts come from hint_texts.yaml and
are computed in the notebook's namespace when asked for, one rung at a time."""
from __future__ import annotations

import json
import re

import pytest
import yaml

from coursekit import hints
from coursekit.hints import hint_ladder
from paths import ROOT

PROMPTS = yaml.safe_load(hints.TEXTS.read_text())


def hint_cells():
    for folder in ("labs", "solutions"):
        for path in sorted((ROOT / folder).glob("*/*.ipynb")):
            for cell in json.loads(path.read_text())["cells"]:
                source = "".join(cell["source"])
                if re.search(r"^hint_ladder\(", source, flags=re.M):
                    yield path, source


def test_lab_cells_show_a_call_not_the_hint_text():
    ids = []
    for path, source in hint_cells():
        calls = re.findall(r"hint_ladder\((.*?)\)\s*$", source, flags=re.S | re.M)
        assert calls and all(re.fullmatch(r'"[a-z0-9-_]+"', c) for c in calls), f"{path}: {source[-300:]}"
        ids += [c.strip('"') for c in calls]
        for prompt in PROMPTS.values():
            for hint in prompt["hints"]:
                assert hint.strip('"f')[:40] not in source, f"{path} shows a hint in its source"
    assert sorted(set(ids)) == sorted(PROMPTS), "every stored prompt is used, and every used one is stored"


@pytest.mark.parametrize("prompt_id", sorted(PROMPTS))
def test_every_stored_text_is_an_expression(prompt_id):
    entry = PROMPTS[prompt_id]
    for expression in [entry["question"], entry["answer"], *entry["hints"], entry.get("title", '""')]:
        compile(f"({expression}\n)", prompt_id, "eval")


def test_ladder_by_id_computes_in_the_callers_namespace(tmp_path, monkeypatch):
    texts = tmp_path / "hint_texts.yaml"
    texts.write_text(yaml.safe_dump({"demo": {"question": '"How many chips?"', "hints": ['f"Divide by {per_chip}."'],
                                              "answer": 'f"{total // per_chip} chips"\nf" in all."',
                                              "title": '"Chips"'}}))
    monkeypatch.setattr(hints, "TEXTS", texts)
    total, per_chip = 640, 80  # noqa: F841 (read by the stored f-strings through this frame's globals)
    globals().update(total=total, per_chip=per_chip)
    box = hint_ladder("demo")
    header, hint, answer, button = box.children
    assert "How many chips?" in header.value and "Chips" in header.value
    assert hint.layout.display == "none" and answer.layout.display == "none"
    # nothing of a rung reaches the page before it is revealed: the widgets' state holds no text yet
    assert hint.value == answer.value == "" and "Divide by" not in json.dumps([w.get_state() for w in box.children])
    box.reveal()
    assert "Divide by 80." in hint.value and hint.layout.display is None and answer.layout.display == "none"
    box.reveal()
    assert "8 chips in all." in answer.value and button.disabled
    with pytest.raises(KeyError, match="no discussion prompt 'nope'"):
        hint_ladder("nope")
