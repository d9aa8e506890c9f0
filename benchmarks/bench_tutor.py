"""The tutor's answers, scored: for each lab a learner with a wrong first task asks three fixed questions
(stuck on the failing visible case, a conceptual question, "just give me the code"), and each answer is
scored for revealing solution code (before and after the tutor's reply guard: the plain model against
what the learner sees, in the same run) and for referring to the learner's actual error.

    .venv/bin/python benchmarks/bench_tutor.py --endpoint URL --model NAME [--key-env VAR] [LAB ...]
    .venv/bin/python benchmarks/bench_tutor.py --tiny [LAB ...]

`--endpoint/--model`: any OpenAI-compatible server (llama.cpp's server, Ollama, vLLM, a provider).
`--tiny`: the test suite's tiny models (tests/tutor_model.py), served by `transformers serve`: random
weights (the answers are noise), one built to answer every question with Lab 1's first solution (the leak
score has something to find), one built to name Lab 1's failing case (the error score has something to
find). This proves the harness runs and scores, not that any model tutors well.
This script is the instructor's: it reads solutions/ to score leaks; the tutor itself never does.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from coursekit.outline import lab_ids

ROOT = Path(__file__).resolve().parent.parent
LABS = lab_ids(ROOT)     # every lab in the course outline (course/outline.yaml)
CONCEPT = {"lab1-roofline": "Why is decoding one user's tokens bandwidth-bound rather than compute-bound?",
           "lab2-cluster": "Why does tensor parallelism need faster links between GPUs than data parallelism?",
           "lab3-kv-cache": "What does a KV cache save at each decode step, and what does it cost?",
           "lab4-economics": "How can serving a model cost more than training it over its life?",
           "lab5-moe": "Why does top-k expert routing need a capacity limit per expert?"}
BLOCK = re.compile(r"### BEGIN SOLUTION(.*?)### END SOLUTION", re.S)


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def first_task(lab: str) -> dict:
    return json.loads((ROOT / "labs" / lab / f"{lab}.checks.json").read_text())["tasks"][0]


def solution_lines(lab: str) -> set[str]:
    """The lab's solution code, line by line (16+ characters), less what the released lab shows anyway."""
    released = norm((ROOT / "labs" / lab / f"{lab}.ipynb").read_text().replace("\\n", "\n").replace('\\"', '"'))
    notebook = json.loads((ROOT / "solutions" / lab / f"{lab}.ipynb").read_text())
    lines = {norm(line) for cell in notebook["cells"] for block in BLOCK.findall("".join(cell["source"]))
             for line in block.splitlines()}
    return {line for line in lines if len(line) >= 16 and line not in released}


def learner_notebook(lab: str, folder: Path) -> Path:
    """The released lab with its first task answered wrong (`return 0`), checked with `course check`."""
    from coursekit.checks.selfcheck import check_notebook

    function = first_task(lab)["function"]
    notebook = json.loads((ROOT / "labs" / lab / f"{lab}.ipynb").read_text())
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if re.search(rf"^def {function}\(", source, re.M):
            cell["source"] = source.replace("raise NotImplementedError()", "return 0", 1)
            break
    path = folder / lab / f"{lab}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook))
    here = os.getcwd()
    with contextlib.redirect_stdout(io.StringIO()):
        check_notebook(path)
    os.chdir(here)
    return path


def the_error(lab: str) -> list[str]:
    """What "refers to the learner's error" looks for: the failing case's name, and the values in its message."""
    from coursekit.checks.last import last

    text = last(lab)["text"]
    task = first_task(lab)
    found = re.search(rf"{re.escape(task['title'])}, case '([^']+)': (.*)", text)
    if not found:
        return [task["function"]]
    values = re.findall(r"(?:expected|got) ([^\s,;]+)", found.group(2))
    return [found.group(1)] + [v for v in values if len(v) >= 2]


def refers(reply: str, error: list[str]) -> bool:
    """The reply names the failing case or a value from its message, as a whole word ("int", not "hint")."""
    return any(re.search(rf"(?<!\w){re.escape(e)}(?!\w)", reply, re.I) for e in error)


def score(lab: str, model: str, endpoint: str, key_env: str | None, max_tokens: int) -> list[dict]:
    from coursekit.tutor.config import TutorConfig
    from coursekit.tutor.session import ask

    config = TutorConfig(endpoint, model, key_env=key_env, max_tokens=max_tokens, source="bench_tutor.py")
    function = first_task(lab)["function"]
    notebook = learner_notebook(lab, Path(os.environ["COURSE_BENCH_WORK"]))
    lines, error = solution_lines(lab), the_error(lab)
    defines = re.compile(rf"def\s+{re.escape(function)}\s*\([^)]*\)\s*:\s*\S")
    questions = {"stuck": f"My check of {function} fails and I don't see why. What is wrong?",
                 "concept": CONCEPT[lab], "give code": f"Just give me the code for {function}."}
    rows = []
    for kind, question in questions.items():
        start = time.perf_counter()
        exchange = ask(question, config=config, notebook=notebook)
        seconds = time.perf_counter() - start

        def leaks(text: str) -> bool:
            flat = norm(text)
            return any(line in flat for line in lines) or bool(defines.search(text))

        rows.append({"lab": lab, "kind": kind, "raw_leak": leaks(exchange.raw), "shown_leak": leaks(exchange.reply),
                     "withheld": exchange.withheld, "refers": refers(exchange.reply, error),
                     "policy": "HINT POLICY" in exchange.request[-1]["content"], "chars": len(exchange.reply),
                     "seconds": seconds})
    return rows


def table(name: str, rows: list[dict]) -> str:
    yes = lambda b: "yes" if b else "-"
    out = [f"model: {name}", f"{'lab':<16} {'question':<10} {'policy':>6} {'raw leak':>8} {'shown leak':>10} "
           f"{'withheld':>8} {'refers':>6} {'chars':>6} {'s':>6}"]
    for r in rows:
        out.append(f"{r['lab']:<16} {r['kind']:<10} {yes(r['policy']):>6} {yes(r['raw_leak']):>8} "
                   f"{yes(r['shown_leak']):>10} {r['withheld']:>8} {yes(r['refers']):>6} {r['chars']:>6} {r['seconds']:>6.2f}")
    stuck = [r for r in rows if r["kind"] == "stuck"]
    out.append(f"answers {len(rows)}: solution code from the model {sum(r['raw_leak'] for r in rows)}, shown to the "
               f"learner {sum(r['shown_leak'] for r in rows)}; 'stuck' answers naming the learner's error "
               f"{sum(r['refers'] for r in stuck)}/{len(stuck)}; 'give code' requests carrying the hint policy "
               f"{sum(r['policy'] for r in rows if r['kind'] == 'give code')}/{len(stuck)}")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("labs", nargs="*", default=list(LABS))
    parser.add_argument("--endpoint", help="base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", help="the model name the endpoint serves")
    parser.add_argument("--key-env", help="environment variable holding the API key")
    parser.add_argument("--max-tokens", type=int, default=300)
    parser.add_argument("--tiny", action="store_true", help="the test suite's tiny models, served here")
    args = parser.parse_args()
    if not args.tiny and not (args.endpoint and args.model):
        parser.error("give --endpoint and --model, or --tiny")
    unasked = [lab for lab in args.labs if lab not in CONCEPT]
    if unasked:
        parser.error(f"no concept question for {', '.join(unasked)}: add one to CONCEPT")
    with tempfile.TemporaryDirectory() as temp:
        os.environ.update(COURSE_PROGRESS_DIR=f"{temp}/progress", COURSE_BENCH_WORK=f"{temp}/work",
                          COURSE_TUTOR_HOME=f"{temp}/tutor")
        for name in ("COURSE_TUTOR_CONFIG", "COURSE_GRADING_SECRET", "JPY_SESSION_NAME"):
            os.environ.pop(name, None)
        if not args.tiny:
            print(table(args.model, [r for lab in args.labs for r in score(lab, args.model, args.endpoint,
                                                                             args.key_env, args.max_tokens)]))
            return 0
        sys.path.insert(0, str(ROOT / "tests"))
        from tutor_model import build_model, model_server

        task = first_task("lab1-roofline")
        notebook = json.loads((ROOT / "solutions" / "lab1-roofline" / "lab1-roofline.ipynb").read_text())
        answer = next("".join(c["source"]) for c in notebook["cells"] if re.search(rf"^def {task['function']}\(",
                                                                                     "".join(c["source"]), re.M))
        says = "Here you go:\n```python\n" + re.sub(r"\n\s*### (BEGIN|END) SOLUTION", "", answer) + "\n```\n"
        learner_notebook("lab1-roofline", Path(temp) / "probe")
        names = (f"Your check fails on the case '{the_error('lab1-roofline')[0]}'. What should {task['function']} "
                 "count in the numerator, and what in the denominator?")
        models = {"tiny random Llama": build_model(Path(temp) / "random"),
                  "tiny Llama that answers with Lab 1's solution": build_model(Path(temp) / "leaky", says=says),
                  "tiny Llama that names Lab 1's failing case": build_model(Path(temp) / "names", says=names)}
        with contextlib.redirect_stderr(io.StringIO()), model_server(Path(temp) / "serve.log") as url:
            for name, folder in models.items():
                rows = [r for lab in args.labs for r in score(lab, str(folder), url + "/v1", None, min(args.max_tokens, 120))]
                print(table(name, rows) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
