"""The untrusted side: run a submission's code cells, call its functions on the cases, report plain data.

Runs in the sandboxed grading child (see autograder.sandbox.worker). Nothing here decides a score: the
result is JSON (encoded outputs, cell errors, runtime observations) that the trusted parent judges.
Whatever the student does to this process can only change what it reports, and a report is worth
points only when its outputs equal the trusted reference on inputs drawn from a secret.
"""
from __future__ import annotations

import json
import os
import re
import signal
import sys
from typing import Any

from coursekit.checks.reach import call_watched
from autograder.sandbox.protocol import FLAGS_END, GRADING_ENV, RESULT_TOO_LARGE
from autograder.spec import Case, LabSpec

ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
# A process's environment as a file (its own or another's, a thread's too), and a glob reaching for them.
PROC_ENVIRON = re.compile(r"/proc/[^/]+(?:/task/[^/]+)?/environ")
PROC_ENVIRON_GLOB = re.compile(r"/proc/.*environ")
# The harness's own instruments a graded function passes through (its os.environ): not the course's code
INSTRUMENTS = (__name__,)
STUDENT_FILE = "<ipython-input-"


def short_error(error: BaseException) -> str:
    """One deterministic line: type and message, no memory addresses, at most 300 characters."""
    text = f"{type(error).__name__}: {error}".strip().splitlines()[0] if str(error) else type(error).__name__
    return ADDRESS.sub("0x…", text)[:300]


class StreamedFlags(set):
    """A set of flags that sends each new flag down the worker's flag pipe the moment it is raised, so
    student code that later rewrites or drops its report cannot take back what was already seen."""

    def __init__(self, fd: int | None = None) -> None:
        super().__init__()
        self.fd, self.write = fd, os.write   # os.write held before student code can replace it

    def add(self, flag: str) -> None:
        if flag not in self and self.fd is not None:
            try:
                self.write(self.fd, (flag.replace("\n", " ")[:200] + "\n").encode())
            except OSError:
                pass                         # closed by the notebook: the worker notices the missing end
        super().add(flag)


class Observer:
    """Runtime signals: audit events, environment reads, patched helpers, signal handlers."""

    WATCHED = {
        "unittest.case.TestCase": None, "numpy.testing": None, "torch.testing": None,
        "math": ["isclose"], "builtins": ["isinstance", "print", "open", "__import__", "AssertionError",
                                          "type", "float", "int", "len"],
        "json": ["dumps", "loads"], "coursekit.checks.cases": ["encode", "approx"],
        "coursekit.checks": ["run_visible"], "coursekit.checks.visible": ["run_visible", "run_task"],
        "autograder.judge.hidden": ["check_task"], "os": ["_exit", "environ"],
    }

    def __init__(self, hidden: list[tuple[str, str]], workdir: str, keep: list[str] = (),
                 flag_fd: int | None = None, checks: tuple[str, ...] = ()) -> None:
        self.flags: set[str] = StreamedFlags(flag_fd)
        self.checks = checks            # the lab's own checks modules: every function and class they define
        self.hidden = [(path.rstrip("/") + "/", path, label) for path, label in hidden]
        self.keep = [(path.rstrip("/") + "/", path, None) for path in keep]
        self.workdir = workdir.rstrip("/") + "/"
        self.snapshot = self._take()
        self.handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        self.excepthook = sys.excepthook

    def _objects(self, dotted: str) -> Any:
        module, _, attr = dotted.partition(".case.")
        obj = sys.modules.get(dotted if not attr else module + ".case")
        return getattr(obj, attr, None) if attr else obj

    def _take(self) -> dict[str, int]:
        seen: dict[str, int] = {}
        for name, attrs in self.WATCHED.items():
            obj = self._objects(name)
            if obj is None:
                continue
            for attr in attrs or [a for a in vars(obj) if a.startswith("assert")]:
                if attr in vars(obj):
                    seen[f"{name.replace('.case.', '.')}.{attr}"] = id(vars(obj)[attr])
        for name in self.checks:        # e.g. Lab 6's loop that drives the engine and records its run
            module = sys.modules.get(name)
            for attr, value in (vars(module).items() if module else ()):
                if getattr(value, "__module__", None) == name and callable(value):
                    seen[f"{name}.{attr}"] = id(value)
        return seen

    def audit(self, event: str, args: tuple) -> None:
        try:
            self._audit(event, args)
        except Exception:            # noqa: BLE001 - an observer must never break the code it watches
            pass

    def _audit(self, event: str, args: tuple) -> None:
        if event == "open":
            self._open(args)
        elif event in {"os.fork", "os.forkpty", "subprocess.Popen", "os.system", "os.posix_spawn",
                       "os.exec", "os.spawn", "pty.spawn"}:
            self.flags.add(f"fork: {event} at runtime")
        elif event == "socket.connect" or event == "socket.getaddrinfo":
            self.flags.add("network: tried to connect")
        elif event == "object.__setattr__" and args and isinstance(args[0], type):
            module = getattr(args[0], "__module__", "") or ""
            if module.startswith(("unittest", "numpy.testing", "torch.testing", "autograder", "coursekit.checks",
                                  "builtins")):
                self.flags.add(f"tamper: patches {args[0].__name__}.{args[1]}")
        elif event in ("glob.glob", "glob.glob/2") and args and isinstance(args[0], (str, bytes)) \
                and PROC_ENVIRON_GLOB.search(os.fsdecode(args[0])):
            self.flags.add(f"env: globs processes' environments ({os.fsdecode(args[0])[:60]})")
        elif event == "sys.setprofile" or event == "sys.settrace":
            if _from_student():
                self.flags.add(f"introspection: installs a {event.split('set')[-1]} hook")

    def _open(self, args: tuple) -> None:
        path, mode, flags = (list(args) + [None, None, None])[:3]
        if not isinstance(path, (str, bytes)) or isinstance(path, bytes) and not path:
            return
        path = os.fsdecode(path)
        full = os.path.normpath(path if path.startswith("/") else os.path.join(self.workdir, path))
        if PROC_ENVIRON.fullmatch(full):
            self.flags.add(f"env: reads a process's environment ({full[:60]})")
        # The deepest matching rule wins: /root is hidden, but an interpreter kept under it is not.
        best, label = "", None
        for prefix, exact, name in self.hidden + self.keep:
            if (full == exact or full.startswith(prefix)) and len(exact) > len(best):
                best, label = exact, name
        if label is not None:
            self.flags.add(f"files: tried to open {label}")
            return
        writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or \
                  (isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
        if writing and not (full + "/").startswith(self.workdir) and full != "/dev/null" and _from_student():
            self.flags.add(f"files: writes outside its folder ({full})")

    def finish(self, shell) -> list[str]:
        after = self._take()
        for name, ident in self.snapshot.items():
            if after.get(name) != ident:
                self.flags.add(f"tamper: patches {name}")
        for sig, handler in self.handlers.items():
            if signal.getsignal(sig) != handler:
                self.flags.add(f"signals: changes the {signal.Signals(sig).name} handler")
        if sys.excepthook is not self.excepthook or shell.custom_exceptions:
            self.flags.add("tamper: custom exception handler")
        manager = shell.input_transformer_manager
        if shell.input_transformers_post or shell.ast_transformers or \
                len(manager.cleanup_transforms) != self.cleanup or len(manager.line_transforms) != self.lines:
            self.flags.add("tamper: IPython input transformer")
        return sorted(self.flags)


# Frames to look through when asking "did the notebook do this?": os.environ's machinery, and
# IPython's own wrapper around open() in the user namespace.
LIBRARY_FILES = {__file__, os.__file__, getattr(sys.modules.get("_collections_abc"), "__file__", ""), "<frozen os>",
                 "<frozen _collections_abc>",
                 getattr(sys.modules.get("IPython.core.interactiveshell"), "__file__", "") or "-"}
MEMORY_ERRORS = re.compile(r"can't allocate memory|out of memory|cannot allocate memory|std::bad_alloc", re.I)


def _from_student() -> bool:
    """True when the code that triggered the event is the notebook's own (not a library it called)."""
    try:
        frame = sys._getframe(1)
    except ValueError:
        return False
    while frame is not None and frame.f_code.co_filename in LIBRARY_FILES:
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(STUDENT_FILE)


class WatchedEnviron(type(os.environ)):
    """os.environ (and os.environb) that notes when notebook code reads grading-looking variables, lists
    them all, or takes the raw dict underneath (`_data`, which no method of its own would see)."""

    observer: Observer | None = None

    def __getitem__(self, key):
        self._note(key)
        return super().__getitem__(key)

    def __iter__(self):
        if self.observer is not None and _from_student():
            self.observer.flags.add("env: lists the environment")
        return super().__iter__()

    @property
    def _data(self):
        # os's own methods read self._data on every call: only a read written in the notebook is flagged
        if self.observer is not None and _caller_is_student():
            self.observer.flags.add("env: reads the raw environment (os.environ._data)")
        return self.__dict__["_raw"]

    @_data.setter
    def _data(self, data) -> None:
        self.__dict__["_raw"] = data

    def _note(self, key) -> None:
        if isinstance(key, bytes):
            key = key.decode("utf-8", "replace")
        if self.observer is not None and isinstance(key, str) and GRADING_ENV.search(key) and _from_student():
            self.observer.flags.add(f"env: reads {key}")


def _caller_is_student() -> bool:
    """True when the code that made the access calling this helper's caller is the notebook's own."""
    try:
        return sys._getframe(2).f_code.co_filename.startswith(STUDENT_FILE)
    except ValueError:
        return False


def _watch_environment() -> None:
    environ, environb = os.environ, getattr(os, "environb", None)
    os.environ = WatchedEnviron(environ._data, environ.encodekey, environ.decodekey,
                                environ.encodevalue, environ.decodevalue)
    if environb is not None:                 # the same dict in bytes: watched the same way
        os.environb = WatchedEnviron(environ._data, environb.encodekey, environb.decodekey,
                                     environb.encodevalue, environb.decodevalue)


def _plain_type(value: Any, observer: Observer, depth: int = 0) -> None:
    """Flag returned objects whose type could lie to an in-process `==` check."""
    cls = type(value)
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor) and cls not in (torch.Tensor, torch.nn.Parameter):
        observer.flags.add(f"tamper: returns a tensor subclass ({cls.__name__})")
    elif any(k.__module__ == "__main__" and ("__eq__" in vars(k) or "__ne__" in vars(k)) for k in cls.__mro__):
        observer.flags.add(f"tamper: returns {cls.__name__}, a class with its own __eq__")
    if depth < 2 and isinstance(value, (list, tuple)):
        for item in value[:16]:
            _plain_type(item, observer, depth + 1)
    elif depth < 2 and isinstance(value, dict):
        for item in list(value.values())[:16]:
            _plain_type(item, observer, depth + 1)


def _note_reach(entry: dict, grade_id: str, reaches: list[str], observer: Observer) -> None:
    if reaches and "forbidden" not in entry:
        entry["forbidden"] = reaches[0]
        observer.flags.add(f"reference: {grade_id} calls {reaches[0]}")


def note_error(error: BaseException | None, observer: Observer) -> None:
    """Flag errors that mean a limit was hit or an exit was attempted."""
    if error is None:
        return
    if isinstance(error, MemoryError) or MEMORY_ERRORS.search(str(error)):
        observer.flags.add("memory: allocation failed (memory limit)")
    elif isinstance(error, SystemExit):
        observer.flags.add("exit: raised SystemExit (sys.exit)")
    elif isinstance(error, OSError) and error.errno == 27:      # EFBIG: RLIMIT_FSIZE
        observer.flags.add("files: hit the file size limit")


def checks_modules(spec: LabSpec) -> tuple[str, ...]:
    """The course checks modules the spec's tasks prepare, encode and compare with (coursekit.checks.*)."""
    names = {getattr(part, "__module__", None) or type(part).__module__
             for task in spec.tasks for part in (task.prepare, task.encode, task.compare)}
    return tuple(sorted(n for n in names if n and n.startswith("coursekit.checks.")))


def run(job: dict, spec: LabSpec, shell, result_fd: int, sandbox_flags: list[str], flag_fd: int | None = None) -> None:
    """Run the cells, call each task's function on its cases at its test cell's place (`at`, a cell
    index), write one JSON document to result_fd; stream every flag to flag_fd as it is raised."""
    dumps = json.dumps                       # held before student code can replace json.dumps
    watched = call_watched                   # and the reference watch, before a notebook can rebind it
    forbids = {t.grade_id: t.forbids for t in spec.tasks}    # and what each task forbids
    write, truncate, pwrite = os.write, os.ftruncate, os.pwrite
    _watch_environment()
    # A known start: a grader launched in the background (no job control) inherits SIGINT ignored,
    # and a notebook setting SIG_IGN would then look like no change. Python's own defaults first.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    observer = Observer([tuple(h) for h in job["hide"]], os.getcwd(), job["confinement"].get("keep", []),
                        flag_fd, checks_modules(spec))
    for flag in sandbox_flags:
        observer.flags.add(flag)
    WatchedEnviron.observer = observer
    manager = shell.input_transformer_manager
    observer.cleanup, observer.lines = len(manager.cleanup_transforms), len(manager.line_transforms)
    sys.addaudithook(observer.audit)
    forks = []
    os.register_at_fork(before=lambda: forks.append(1))

    tasks: dict[str, dict] = {}

    def judge(task_job: dict) -> None:
        """Call the task's function, as the notebook binds it now, on every case (encoded plain data)."""
        task = spec.task(task_job["grade_id"])
        function = shell.user_ns.get(task.function)
        entry: dict[str, Any] = {"defined": callable(function), "outputs": []}
        if callable(function):
            for raw in task_job["cases"]:
                case = Case(raw["name"], tuple(raw["args"]), dict(raw["kwargs"]))
                reaches: list[str] = []                      # kept when the call raises (a stand-in did)
                try:
                    args, kwargs = task.prepare(case)
                    output, _ = watched(function, args, kwargs, forbids[task.grade_id], reaches, INSTRUMENTS)
                    _note_reach(entry, task.grade_id, reaches, observer)
                    _plain_type(output, observer)
                    value = task.encode(output)
                    dumps(value)                              # unencodable data fails this case only
                    entry["outputs"].append({"value": value})
                except BaseException as error:               # noqa: BLE001 - student code may raise anything
                    _note_reach(entry, task.grade_id, reaches, observer)
                    note_error(error, observer)
                    entry["outputs"].append({"error": short_error(error)})
        tasks[task.grade_id] = entry

    # Each task is judged where its test cell stands, as a run from the top judges it (nbgrader, the
    # student's own Run All): after the cells above it, before any cell below it.
    end = float("inf")                                       # taken before any student code runs
    pending = sorted(([t.get("at", end), t] for t in job["tasks"]), key=lambda pair: pair[0])
    cell_errors = []
    for index, source in job["cells"]:
        while pending and pending[0][0] < index:
            judge(pending.pop(0)[1])
        shell.exit_now = False
        try:
            outcome = shell.run_cell(source, store_history=False, silent=True)
            error = outcome.error_before_exec or outcome.error_in_exec
        except BaseException as caught:                      # noqa: BLE001 - student code may raise anything
            error = caught
        note_error(error, observer)
        if shell.exit_now:
            observer.flags.add("exit: asked the kernel to exit")
        if error is not None:
            cell_errors.append({"cell": index, "error": short_error(error)})
    for _, task_job in pending:
        judge(task_job)
    if forks:
        observer.flags.add("fork: forked at runtime")
    report = {"cell_errors": cell_errors, "tasks": tasks,
              "flags": sorted(set(observer.finish(shell)) | set(sandbox_flags))}
    data = dumps(report, allow_nan=True).encode()
    truncate(result_fd, 0)                                   # anything written before is discarded
    view, offset = memoryview(data), 0
    try:
        while offset < len(data):
            offset += pwrite(result_fd, view[offset:], offset)
    except OSError as error:
        if error.errno == 27:                                # EFBIG: past RLIMIT_FSIZE
            os._exit(RESULT_TOO_LARGE)
        raise
    if flag_fd is not None:
        try:
            write(flag_fd, f"{FLAGS_END}\n".encode())
        except OSError:
            pass                                             # closed by the notebook: the engine flags it
