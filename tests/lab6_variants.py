"""Lab 6 submissions built from the solution notebook: the honest one and engines that try to look fast
or right without being so. Each variant's code is appended to the milestone 2 answer cell (so it is
what task test_batching and the timed runs use). Shared by tests/content/m6/test_lab6_adversarial.py and
benchmarks/bench_lab6_batch.py."""
from __future__ import annotations

from pathlib import Path

import nbformat

from paths import ROOT

SOLUTION = ROOT / "solutions" / "lab6-serving" / "lab6-serving.ipynb"

# CPU work a slow engine adds to every milestone 2 step: far more than the reference engine's whole step
# on the tiny timed models, so the slow engine's ratio lies well under the speed floor (the other
# milestones stay the solution's, so the grading child stays within its CPU limit).
SLOW = '''
class _Slow(BatchingEngine):
    def step(self):
        sum(i * i for i in range(2_000_000))
        return super().step()


_honest = make_engine


def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    if milestone != 2:
        return _honest(milestone, model, cache, draft, draft_cache, token_budget)
    return _Slow(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
'''

FORK_SERVER = '''
import os as _os
import pickle as _pickle


class _Proxy:
    def __init__(self, *args, **kwargs):
        self._made, self._pipes = (args, kwargs), None

    def _call(self, name, *args):
        if self._pipes is None:
            up_r, up_w = _os.pipe()
            down_r, down_w = _os.pipe()
            if _os.fork() == 0:
                _os.close(up_w)
                _os.close(down_r)
                engine = _Slow(*self._made[0], **self._made[1])
                reader, writer = _os.fdopen(up_r, "rb"), _os.fdopen(down_w, "wb")
                while True:
                    try:
                        what, given = _pickle.load(reader)
                    except EOFError:
                        _os._exit(0)
                    attr = getattr(engine, what)
                    _pickle.dump(attr(*given) if callable(attr) else attr, writer)
                    writer.flush()
            _os.close(up_r)
            _os.close(down_w)
            self._pipes = (_os.fdopen(up_w, "wb"), _os.fdopen(down_r, "rb"))
        _pickle.dump((name, args), self._pipes[0])
        self._pipes[0].flush()
        return _pickle.load(self._pipes[1])

    def add_request(self, *args):
        return self._call("add_request", *args)

    def step(self):
        return self._call("step")

    def has_unfinished(self):
        return self._call("has_unfinished")

    @property
    def kv_blocks_in_use(self):
        return self._call("kv_blocks_in_use")
'''

VARIANTS = {
    "honest": "",
    "slow": SLOW,
    # the clock is the kernel's CPU seconds of the run, read by the grader after the child ends
    "clock": SLOW + '''
import time as _t
_t.perf_counter = _t.monotonic = _t.process_time = _t.time = lambda: 0.0
_t.perf_counter_ns = _t.monotonic_ns = _t.process_time_ns = lambda: 0
''',
    # the course's loop in this process reports a fast, empty run: the tokens are judged on the trusted side
    "harness": SLOW + '''
import coursekit.checks.lab6_serving as _h
_h.drive = lambda engine, plan: {"tokens": [[] for _ in plan.requests], "first_step": [0] * len(plan.requests),
                                 "error": None, "steps": 1, "peak_blocks": 0, "final_blocks": 0, "over_need": None,
                                 "max_step_tokens": 0, "target_tokens": 0, "target_passes": 0, "draft_passes": 0}
''',
    # slowing the reference engine here changes nothing: reference runs are other processes
    "reference": SLOW + '''
try:
    import coursekit.serving.engine as _ref
    _ref.ServingEngine.step = lambda self: sum(range(10**9))
except Exception:
    pass
''',
    # tokens made up, quickly
    "fake_tokens": '''
class _Fake(BatchingEngine):
    def step(self):
        out = StepOutput()
        for req in list(self.waiting):
            self.waiting.remove(req)
            out.new_tokens[req.rid] = [7] * req.max_new_tokens
            out.finished.append(req.rid)
        return out


def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    return _Fake(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
''',
    # no engine: a decode record handed in as if it were the trusted side's (only the grader's reference may)
    "decode_record": '''
from coursekit.checks.lab6_serving import TrustedDecode as _Record


_honest = make_engine


def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    if milestone != 2:
        return _honest(milestone, model, cache, draft, draft_cache, token_budget)
    return _Record({"reference": True, "tokens": [], "ties": [], "limits": {}, "num_blocks": 0, "token_budget": None})
''',
    # a slow engine behind a server forked at the first step, add_request/step forwarded over a pipe: the
    # server's CPU seconds are not the timed child's, so a timed run that starts a process is killed
    "fork_server": SLOW.replace("_Slow(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)",
                                "_Proxy(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)")
    + FORK_SERVER,
    # sleeps in timed runs (16 requests at step 0): no CPU is spent, but the worker is held; the run is
    # stopped a few reference runs' wall-clock times in, as too slow
    "sleep": SLOW.replace("class _Slow(BatchingEngine):", """import time as _time


class _Slow(BatchingEngine):
    at_zero = 0

    def add_request(self, prompt_tokens, max_new_tokens, arrival_time=0.0):
        self.at_zero += arrival_time == 0
        return super().add_request(prompt_tokens, max_new_tokens, arrival_time)
""").replace("sum(i * i for i in range(2_000_000))", "_time.sleep(30 if self.at_zero >= 16 else 0)"),
    # milestone 4 with no speculation: the course's pass counter on the target model is cleared in every
    # step and one draft pass is made for show; the trusted side sees one token per step come back
    "clear_hooks": '''
import torch as _torch

_honest = make_engine


def make_engine(milestone, model, cache, draft=None, draft_cache=None, token_budget=None):
    if milestone != 4:
        return _honest(milestone, model, cache, draft, draft_cache, token_budget)

    class _NoSpeculation(ChunkedPrefixEngine):
        def step(self):
            self.model.embed._forward_pre_hooks.clear()
            draft.embed(_torch.zeros(1, dtype=_torch.long))
            return super().step()

    return _NoSpeculation(model, cache, draft=draft, draft_cache=draft_cache, token_budget=token_budget)
''',
    # outputs remembered by prompt, in memory and on disk: every timed run is a fresh process on new requests
    "memoize": SLOW.replace("class _Slow(BatchingEngine):", '''_MEMO = {}


class _Slow(BatchingEngine):
    def add_request(self, prompt_tokens, max_new_tokens, arrival_time=0.0):
        _MEMO.setdefault(tuple(prompt_tokens), None)
        try:
            with open("/tmp/lab6-memo", "a") as memo:
                memo.write(repr(tuple(prompt_tokens)) + "\\n")
        except OSError:
            pass
        return super().add_request(prompt_tokens, max_new_tokens, arrival_time)
'''),
}


def build(name: str, folder: Path) -> Path:
    """Write the variant's notebook under `folder`; return its path."""
    nb = nbformat.read(SOLUTION, as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "impl_batching")
    cell.source = cell.source.rstrip() + "\n\n" + VARIANTS[name].strip() + "\n"
    path = folder / name / "lab6-serving.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)
    return path
