"""A private course's own formulas (issue 40): a bank may call `formulas:name`, a function in the
`formulas.py` beside it, instead of changing the public `coursekit` package; `course quiz check`
validates it the same way (every item instantiated and self-tested), and every mistake names the file."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from coursekit.quiz.bank import load_bank, read_bank
from coursekit.quiz.engine import instantiate

WEIGHT_FN = '{fn: "coursekit.calc.memory:weight_bytes", args: {n_params: 7.0e9, bytes_per_param: 2}, scale: 1.0e-9}'


def private_bank(folder: Path, answer: str, formulas: str | None) -> Path:
    """The template bank with its numeric item's answer replaced by `answer`."""
    done = subprocess.run([sys.executable, "-m", "coursekit.app.cli", "quiz", "new", "kv-quiz", "--root", str(folder),
                           "--module", "m6"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    bank = folder / "kv-quiz.yaml"
    text = bank.read_text()
    assert f"answer: {WEIGHT_FN}" in text
    bank.write_text(text.replace(f"answer: {WEIGHT_FN}", f"answer: {answer}"))
    if formulas is not None:
        (folder / "formulas.py").write_text(formulas)
    return bank


def check(folder: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "coursekit.app.cli", "quiz", "check", "--root", str(folder)],
                          capture_output=True, text=True, timeout=300)


FORMULAS = '''"""The course's own formula: BF16 weights of a model in GB (a stand-in a private course might add)."""

def bf16_weights_gb(n_params):
    return n_params * 2 / 1e9
'''


def test_a_bank_calls_its_own_formula_and_quiz_check_validates_it(tmp_path):
    bank = private_bank(tmp_path, '{fn: "formulas:bf16_weights_gb", args: {n_params: 7.0e9}}', FORMULAS)
    done = check(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    loaded = load_bank(bank)
    item = next(it for it in loaded.items if it.answer and "bf16_weights_gb" in it.answer["fn"])
    assert abs(instantiate(item, seed=1).answer - 14.0) < 1e-9


def test_a_missing_formulas_file_is_named(tmp_path):
    bank = private_bank(tmp_path, '{fn: "formulas:bf16_weights_gb", args: {n_params: 7.0e9}}', None)
    _, problems = read_bank(bank)
    said = " ".join(p.message for p in problems)
    assert "needs formulas.py beside the bank" in said and "and there is none" in said
    assert check(tmp_path).returncode == 1


def test_a_missing_function_and_a_broken_file_are_named(tmp_path):
    private_bank(tmp_path, '{fn: "formulas:fp8_weights_gb", args: {n_params: 7.0e9}}', FORMULAS)
    done = check(tmp_path)
    assert done.returncode == 1 and "function 'fp8_weights_gb' not found" in done.stdout + done.stderr
    (tmp_path / "formulas.py").write_text("def fp8_weights_gb(n_params):\n    return n_params / 1e9 +\n")
    done = check(tmp_path)
    said = done.stdout + done.stderr
    assert done.returncode == 1 and "formulas.py: cannot load it (SyntaxError" in said, said


def test_other_code_outside_coursekit_is_still_refused(tmp_path):
    bank = private_bank(tmp_path, '{fn: "os.path:getsize", args: {path: "/etc/hostname"}}', None)
    _, problems = read_bank(bank)
    assert any("is outside coursekit" in p.message and "formulas.py beside the bank" in p.message for p in problems)


def test_two_courses_formulas_of_the_same_name_do_not_shadow_each_other(tmp_path):
    banks = []
    for n, factor in (("a", 2), ("b", 4)):
        folder = tmp_path / n
        folder.mkdir()
        banks.append(private_bank(folder, '{fn: "formulas:bf16_weights_gb", args: {n_params: 7.0e9}}',
                                  FORMULAS.replace("* 2 /", f"* {factor} /")))
    answers = []
    for bank in banks:
        item = next(it for it in load_bank(bank).items if it.answer and "bf16_weights_gb" in it.answer["fn"])
        answers.append(instantiate(item, seed=1).answer)
    assert [round(a, 6) for a in answers] == [14.0, 28.0]
