"""Student code that attacks the grader, shared by the sandbox tests: the probe harness a hostile
submission builds its attempts on (exit status 1 + the bits of what it reached), and the routes to the
course's reference code that the reference rule answers with a stand-in that raises."""

# a hostile cell's start: probe(bit, attempt) sets the bit when the attempt works (also the hub's test)
PROBE = """
import os, socket
bits = 0
def probe(bit, attempt):
    global bits
    try:
        attempt()
        bits |= 1 << bit
    except Exception:
        pass
"""

UNAVAILABLE = "not available while grading"

ROUTES = {
    "the watch's switch turned off through its closure": """
import sys
from coursekit.calc import roofline


def ridge_point(peak_flops, bandwidth):
    for cell in sys.getprofile().__closure__ or ():
        if cell.cell_contents == [True]:
            cell.cell_contents[0] = False
    return roofline.ridge_point(peak_flops, bandwidth)
""",
    "the forbidden tuple emptied through the closure": """
import sys
from coursekit.calc import roofline


def ridge_point(peak_flops, bandwidth):
    for cell in sys.getprofile().__closure__ or ():
        value = cell.cell_contents
        if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
            cell.cell_contents = ()
    return roofline.ridge_point(peak_flops, bandwidth)
""",
    "the hook cleared by ctypes for the call": """
import ctypes, sys
from coursekit.calc import roofline


def ridge_point(peak_flops, bandwidth):
    hook = sys.getprofile()
    ctypes.pythonapi.PyEval_SetProfile(None, None)
    try:
        return roofline.ridge_point(peak_flops, bandwidth)
    finally:
        sys.setprofile(hook)
""",
    "the course code renamed <module>": """
from coursekit.calc import roofline

for function in list(vars(roofline).values()):
    if getattr(function, '__module__', None) == roofline.__name__ and hasattr(function, '__code__'):
        function.__code__ = function.__code__.replace(co_qualname='<module>')


def ridge_point(peak_flops, bandwidth):
    return roofline.ridge_point(peak_flops, bandwidth)
""",
    "a thread started earlier, on request through two Events": """
import threading
from coursekit.calc import roofline

_asked, _done, _box = threading.Event(), threading.Event(), {}


def _serve():
    while True:
        _asked.wait()
        _asked.clear()
        try:
            _box['out'] = roofline.ridge_point(*_box['args'])
        except Exception as error:
            _box['out'] = error
        _done.set()

threading.Thread(target=_serve, daemon=True).start()


def ridge_point(peak_flops, bandwidth):
    _box['args'] = (peak_flops, bandwidth)
    _asked.set()
    _done.wait()
    _done.clear()
    if isinstance(_box['out'], Exception):
        raise _box['out']
    return _box['out']
""",
    "a python -c server started earlier": """
import os, subprocess, sys
import coursekit

_server = subprocess.Popen([sys.executable, '-c', '''
import sys
sys.path.insert(0, %r)
from coursekit.calc import roofline
for line in sys.stdin:
    try:
        print(repr(roofline.ridge_point(*map(float, line.split()))), flush=True)
    except Exception as error:
        print('error', error, flush=True)
''' % os.path.dirname(os.path.dirname(coursekit.__file__))], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def ridge_point(peak_flops, bandwidth):
    _server.stdin.write(f'{peak_flops!r} {bandwidth!r}\\n')
    _server.stdin.flush()
    line = _server.stdout.readline()
    if not line or line.startswith('error'):
        raise RuntimeError(line.strip() or 'the server is gone')
    return float(line)
""",
    "the pasted source read at run time": """
from coursekit.calc import roofline

_mine = {'__name__': 'my_roofline'}
with open(roofline.__file__) as handle:
    exec(compile(handle.read(), 'my_roofline.py', 'exec'), _mine)


def ridge_point(peak_flops, bandwidth):
    return _mine['ridge_point'](peak_flops, bandwidth)
""",
    "the source through inspect": """
import inspect
from coursekit.calc import roofline

_mine = {'__name__': 'my_roofline'}
exec(compile(inspect.getsource(roofline), 'my_roofline.py', 'exec'), _mine)


def ridge_point(peak_flops, bandwidth):
    return _mine['ridge_point'](peak_flops, bandwidth)
""",
    "the compiled copy in __pycache__": """
import glob, marshal, os
from coursekit.calc import roofline

_mine = {'__name__': 'my_roofline'}
for path in glob.glob(os.path.join(os.path.dirname(roofline.__file__), '__pycache__', 'roofline.*.pyc')):
    with open(path, 'rb') as handle:
        data = handle.read()
    if len(data) > 16:
        exec(marshal.loads(data[16:]), _mine)


def ridge_point(peak_flops, bandwidth):
    return _mine['ridge_point'](peak_flops, bandwidth)
""",
}
