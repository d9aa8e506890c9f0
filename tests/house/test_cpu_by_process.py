"""benchmarks/cpu_by_process.py, the tool RESULTS.md's CPU-by-kind tables come from: a busy process is
seen under its kind, and what the samples miss is reported, not spread."""
import importlib.util
import sys

from paths import ROOT

spec = importlib.util.spec_from_file_location("cpu_by_process", ROOT / "benchmarks" / "cpu_by_process.py")
tool = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tool)


def test_kinds_are_read_from_the_command_line():
    assert tool.kind_of("python\0/venv/bin/python -m ipykernel_launcher -f k.json") == "Jupyter kernel"
    assert tool.kind_of("python\0python -m autograder.sandbox.worker 12") == "grading child (sandbox)"
    assert tool.kind_of("chromium\0/usr/lib/chromium/chromium --headless") == "Chromium"
    assert tool.kind_of("python\0python -u -c import sys;exec(eval(sys.stdin.readline()))") == "pytest workers"
    assert tool.kind_of("sleep\0sleep 5") == "other"


def test_a_busy_child_is_counted_under_its_kind():
    busy = "import time\nend = time.process_time() + 1.5\nwhile time.process_time() < end: pass\n"
    result = tool.measure([sys.executable, "-c", busy + "# nbgrader stand-in"], interval=0.2)
    assert result["returncode"] == 0
    assert result["by_kind"].get("nbgrader", 0) > 1.0          # most of its 1.5 s, sampled 5 times a second
    assert result["machine_cpu_s"] >= sum(result["by_kind"].values()) * 0.9
    assert "| not seen" in tool.table(result)
