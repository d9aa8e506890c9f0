"""Where the tutor's model is and who may use it: off until configured.

Two files, both JSON, the class's first:
  COURSE_TUTOR_CONFIG    the class's file (`course hub` points every student's server at <data>/tutor.json):
                         endpoint, model, key file, per-student rate limit, labs it is off for, opt-in counts;
                         with COURSE_TUTOR_SERVICE set (on the hub) questions go to that service instead,
                         which holds the key and enforces the limit (coursekit/app/hub/tutor_service.py)
  <config dir>/tutor.json  a self-paced learner's own, written by `course tutor setup`
                         (COURSE_TUTOR_HOME, else XDG_CONFIG_HOME or ~/.config, then llm-course/)
The key itself is never in either file: a file path (`key_file`) or an environment variable (`key_env`).
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

KEYS = {"endpoint", "model", "key_file", "key_env", "rate_per_hour", "off_for", "count_asks", "asks_dir",
        "max_tokens"}


class TutorConfigError(ValueError):
    """A tutor configuration file that cannot be used; the message names the file."""


@dataclass(frozen=True)
class TutorConfig:
    endpoint: str                      # base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1
    model: str
    key_file: str | None = None        # a file holding the API key (never the key itself)
    key_env: str | None = None         # or the environment variable holding it
    rate_per_hour: int | None = None   # questions per learner per hour; None: no limit
    off_for: tuple[str, ...] = ()      # lab ids the tutor refuses (e.g. during a graded test)
    count_asks: bool = False           # class opt-in: record (lab, task) of each question, never its text
    asks_dir: str | None = None        # where those counts go (the hub's <data>/tutor-asks)
    max_tokens: int = 400
    source: str = field(default="", compare=False)   # the file this came from, for messages

    def key(self) -> str | None:
        if self.key_env:
            return os.environ.get(self.key_env) or None
        if self.key_file:
            path = Path(self.key_file).expanduser()
            try:
                return path.read_text(encoding="utf-8").strip() or None
            except OSError as error:
                raise TutorConfigError(f"{self.source}: cannot read key_file {path} ({error.strerror})") from None
        return None

    def url(self) -> str:
        return self.endpoint.rstrip("/") + "/chat/completions"


def user_config_path() -> Path:
    home = os.environ.get("COURSE_TUTOR_HOME")
    if home:
        return Path(home).expanduser() / "tutor.json"
    base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "llm-course" / "tutor.json"


def class_config_path() -> Path | None:
    value = os.environ.get("COURSE_TUTOR_CONFIG")
    return Path(value).expanduser() if value else None


def parse(data: object, source: str) -> TutorConfig:
    if not isinstance(data, dict):
        raise TutorConfigError(f"{source}: expected a JSON object, got {type(data).__name__}")
    unknown = set(data) - KEYS
    if unknown:
        raise TutorConfigError(f"{source}: unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(KEYS))})")
    for key in ("endpoint", "model"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise TutorConfigError(f"{source}: {key!r} must be a non-empty string")
    if not data["endpoint"].startswith(("http://", "https://")):
        raise TutorConfigError(f"{source}: endpoint {data['endpoint']!r} is not an http(s) URL")
    rate = data.get("rate_per_hour")
    if rate is not None and (not isinstance(rate, int) or isinstance(rate, bool) or rate < 1):
        raise TutorConfigError(f"{source}: rate_per_hour must be a whole number >= 1 (or absent for no limit)")
    off = data.get("off_for", [])
    if not isinstance(off, list) or not all(isinstance(x, str) for x in off):
        raise TutorConfigError(f"{source}: off_for must be a list of lab ids")
    tokens = data.get("max_tokens", 400)
    if not isinstance(tokens, int) or tokens < 1:
        raise TutorConfigError(f"{source}: max_tokens must be a whole number >= 1")
    return TutorConfig(endpoint=data["endpoint"], model=data["model"], key_file=data.get("key_file"),
                       key_env=data.get("key_env"), rate_per_hour=rate, off_for=tuple(off),
                       count_asks=bool(data.get("count_asks", False)), asks_dir=data.get("asks_dir"),
                       max_tokens=tokens, source=source)


def read(path: Path) -> TutorConfig:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise TutorConfigError(f"{path}: cannot read the tutor configuration ({error.strerror})") from None
    except ValueError as error:
        raise TutorConfigError(f"{path}: not valid JSON ({error})") from None
    return parse(data, str(path))


def load() -> TutorConfig | None:
    """The class's configuration if there is one, else the learner's own; None: the tutor is off."""
    klass = class_config_path()
    if klass is not None:            # a class's setting is never silently replaced by a learner's own
        if not klass.is_file():
            raise TutorConfigError(f"{klass}: COURSE_TUTOR_CONFIG names a file that does not exist")
        config = read(klass)
        service = os.environ.get("COURSE_TUTOR_SERVICE")
        if service:                  # on the hub: ask its tutor service with this server's own token
            config = replace(config, endpoint=service, key_file=None, key_env="JUPYTERHUB_API_TOKEN")
        return config
    return read(user_config_path()) if user_config_path().is_file() else None


def write(path: Path, config: TutorConfig, mode: int = 0o600) -> Path:
    """Write `config` whole (temp file + rename); a learner's own is readable by its owner only, a class's
    (mode 0o644) by every student's server."""
    data = {k: v for k, v in asdict(config).items() if k != "source" and v not in (None, (), False)}
    data["off_for"] = list(config.off_for)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")
    os.chmod(temp, mode)
    os.replace(temp, path)
    return path
