"""Static scan of a submission's code for tampering and grader-probing patterns.

Flags never change a score: the judge compares outputs outside the student's process, so these
tricks gain nothing. Flags tell the instructor someone tried. Each flag is "<category>: <detail>";
categories: tamper, exit, signals, fork, env, files, network, introspection. The runtime half (what
the child observed while running) lives in autograder.sandbox.harness; both use the same wording.
"""
from __future__ import annotations

import ast
import re

from autograder.sandbox.protocol import GRADING_ENV

TESTING_ROOTS = {"unittest", "testing", "TestCase", "pytest", "autograder", "builtins", "__builtins__",
                 "check", "checks", "hidden", "run_visible", "check_task", "math", "json"}
ASSERT_NAMES = re.compile(r"^(assert\w*|isclose|allclose|array_equal|equal|approx|encode|compare|dumps)$")
HIDDEN_WORDS = re.compile(r"solutions|instructor-secret|gradebook|submitted|autograded|/proc/self/environ"
                          r"|/proc/\d+|\.\./|(?:^|/)\.git(?:/|$)", re.I)
EXIT_CALLS = {"sys.exit", "os._exit", "exit", "quit", "os.abort", "os.kill", "os.killpg",
              "signal.raise_signal", "signal.pthread_kill", "get_ipython().ask_exit"}
FORK_CALLS = re.compile(r"^(os\.(fork|forkpty|system|popen|spawn\w*|posix_spawn\w*|exec\w*)|pty\.\w+|"
                        r"subprocess\.\w+|multiprocessing\.\w+|concurrent\.futures\.ProcessPoolExecutor)$")
NETWORK_MODULES = {"socket", "urllib", "requests", "http", "httpx", "ftplib", "smtplib", "aiohttp"}
INTROSPECTION = {"sys._getframe": "reads the caller's frames", "inspect.stack": "reads the caller's frames",
                 "inspect.currentframe": "reads the caller's frames", "gc.get_objects": "scans the heap",
                 "gc.get_referrers": "scans the heap", "sys.settrace": "installs a tracer",
                 "sys.setprofile": "installs a profiler", "sys.addaudithook": "installs an audit hook",
                 "ctypes.CDLL": "loads native code", "ctypes.cdll": "loads native code"}
# The environment reached around os.environ's methods: its raw dict, the C module's copy, a process's file.
RAW_ENVIRON = {"posix.environ", "nt.environ", "_posix.environ"}
PROC_ENVIRON = re.compile(r"/proc/.*environ")
TRANSFORMER_ATTRS = {"input_transformers_cleanup", "input_transformers_post", "ast_transformers",
                     "input_transformer_manager", "register_magic_function", "register_transformer"}


def dotted(node: ast.AST) -> str:
    """`np.testing.assert_allclose` for an Attribute chain, `get_ipython()` for a call in it.
    A loop, not recursion: a submission may nest thousands of attributes or calls."""
    suffix = []
    while True:
        if isinstance(node, ast.Name):
            return node.id + "".join(reversed(suffix))
        if isinstance(node, ast.Attribute):
            suffix.append(f".{node.attr}")
            node = node.value
        elif isinstance(node, ast.Call):
            suffix.append("()")
            node = node.func
        elif isinstance(node, ast.Subscript):
            suffix.append("[]")
            node = node.value
        else:
            return "?" + "".join(reversed(suffix))


def _patched(target: str) -> bool:
    parts = target.replace("()", "").split(".")
    if len(parts) < 2:
        return False
    return bool(TESTING_ROOTS & set(parts[:-1])) or bool(ASSERT_NAMES.match(parts[-1]) and len(parts) >= 2
                                                         and parts[0] in {"np", "numpy", "torch", "math"})


class _Scanner:
    """visit_<Node> methods called once per node by `scan`, which walks the tree with a queue:
    an 800-term sum nests 800 deep, deeper than recursion allows."""

    def __init__(self) -> None:
        self.flags: set[str] = set()

    def _targets(self, targets) -> None:
        for target in targets:
            for node in ast.walk(target):
                if isinstance(node, ast.Attribute):
                    name = dotted(node)
                    if _patched(name):
                        self.flags.add(f"tamper: patches {name}")
                    if node.attr == "excepthook":
                        self.flags.add("tamper: custom exception handler (sys.excepthook)")
                    if node.attr in TRANSFORMER_ATTRS:
                        self.flags.add("tamper: IPython input transformer")
                    if name in {"os.environ", "os.environ[]"}:
                        self.flags.add("env: rewrites the environment")
                    break                  # only the outermost attribute of each target

    def visit_Assign(self, node: ast.Assign) -> None:
        self._targets(node.targets)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._targets([node.target])

    def visit_Delete(self, node: ast.Delete) -> None:
        self._targets(node.targets)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        methods = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if "__eq__" in methods or "__ne__" in methods:
            self.flags.add(f"tamper: class {node.name} overrides __eq__")
        bases = {dotted(b) for b in node.bases}
        if any(b.endswith("Tensor") or b.endswith("ndarray") for b in bases) or "__torch_function__" in methods:
            self.flags.add(f"tamper: tensor subclass {node.name}")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self._module(node.module or "")

    def _module(self, name: str) -> None:
        root = name.split(".")[0]
        if root in NETWORK_MODULES:
            self.flags.add(f"network: imports {root}")
        if root in {"subprocess", "multiprocessing", "pty"}:
            self.flags.add(f"fork: imports {root}")

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and HIDDEN_WORDS.search(node.value):
            self.flags.add(f"files: names a protected path ({HIDDEN_WORDS.search(node.value).group(0)})")
        if isinstance(node.value, str) and PROC_ENVIRON.search(node.value):
            self.flags.add(f"env: names processes' environments ({PROC_ENVIRON.search(node.value).group(0)[:40]})")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = dotted(node)
        if name in RAW_ENVIRON or node.attr in ("_data", "__dict__") and \
                dotted(node.value).split(".")[-1] in ("environ", "environb"):
            self.flags.add(f"env: reads the raw environment ({name})")

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if dotted(node.value) == "os.environ":
            self._env_key(node.slice)

    def _env_key(self, key: ast.AST | None) -> None:
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            if GRADING_ENV.search(key.value):
                self.flags.add(f"env: reads {key.value}")

    def visit_Call(self, node: ast.Call) -> None:
        name = dotted(node.func)
        if name in EXIT_CALLS:
            self.flags.add(f"exit: calls {name}()")
        if FORK_CALLS.match(name):
            self.flags.add(f"fork: calls {name}()")
        if name in INTROSPECTION:
            self.flags.add(f"introspection: {INTROSPECTION[name]} ({name})")
        if name in {"signal.signal", "signal.pthread_sigmask", "signal.sigprocmask"}:
            self.flags.add("signals: changes signal handling")
        if name.endswith("set_custom_exc"):
            self.flags.add("tamper: custom exception handler (set_custom_exc)")
        if name.split(".")[-1] in {"register_transformer", "register_magic_function"} or \
                any(a in name for a in TRANSFORMER_ATTRS):
            self.flags.add("tamper: IPython input transformer")
        if name in {"os.getenv", "os.environ.get", "os.environ.pop", "os.getenvb"} and node.args:
            self._env_key(node.args[0])
        if name in {"os.environ.items", "os.environ.keys", "os.environ.copy", "dict"} and \
                (name != "dict" or (node.args and dotted(node.args[0]) == "os.environ")):
            self.flags.add("env: lists the environment")
        if name == "vars" and node.args and dotted(node.args[0]).split(".")[-1] in ("environ", "environb"):
            self.flags.add(f"env: reads the raw environment (vars({dotted(node.args[0])}))")
        if name in {"setattr", "delattr"} and node.args:
            target = dotted(node.args[0])
            attr = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else "?"
            if _patched(f"{target}.{attr}") or target.split(".")[-1] in TESTING_ROOTS:
                self.flags.add(f"tamper: patches {target}.{attr}")


def scan_source(sources: list[str], check=None) -> list[str]:
    """Flags for a list of Python sources (notebook code cells after IPython's magic transform); `check`
    is called before each source and every 10,000 nodes (the engine's CPU budget raises from it)."""
    scanner = _Scanner()
    for source in sources:
        if check:
            check()
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue                 # the run reports the syntax error as a cell error
        for count, node in enumerate(ast.walk(tree), 1):
            if check and count % 10_000 == 0:
                check()
            visit = getattr(scanner, f"visit_{type(node).__name__}", None)
            if visit is not None:
                visit(node)
    return sorted(scanner.flags)
