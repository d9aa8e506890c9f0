"""`course tutor`: set the tutor up (a learner), say what it is configured as, and for an instructor
running a class: turn it off or on per lab, and see which tasks students ask about (counts only)."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from coursekit.tutor.config import TutorConfigError, class_config_path, load, parse, read, user_config_path, write


def setup(args) -> int:
    data = {"endpoint": args.endpoint, "model": args.model}
    for key in ("key_file", "key_env", "rate_per_hour", "max_tokens"):
        if getattr(args, key) is not None:
            data[key] = getattr(args, key)
    if args.count_asks:
        data.update(count_asks=True, asks_dir=args.asks_dir)
    target = Path(args.class_config) if args.class_config else user_config_path()
    config = parse(data, str(target))
    if args.count_asks and not args.asks_dir:
        raise TutorConfigError("--count-asks needs --asks-dir (a folder students can write to and not list)")
    write(target, config, mode=0o644 if args.class_config else 0o600)
    print(f"course tutor: wrote {target}: {config.model} at {config.endpoint}"
          + (f", key from {'$' + config.key_env if config.key_env else config.key_file}" if config.key_env or config.key_file else ", no key"))
    return 0


def status(args) -> int:
    config = load()
    if config is None:
        print(f"course tutor: off (no {class_config_path() or user_config_path()}); `course tutor setup` turns it on")
        return 1
    print(f"course tutor: {config.model} at {config.endpoint} (from {config.source})")
    limit = f"{config.rate_per_hour} questions an hour" if config.rate_per_hour else "none"
    print(f"  rate limit: {limit}; off for: {', '.join(config.off_for) or 'no lab'}")
    print(f"  counts of questions per task: {'on, in ' + str(config.asks_dir) if config.count_asks else 'off'}")
    return 0


def switch(args) -> int:
    path = Path(args.class_config) if args.class_config else (class_config_path() or user_config_path())
    config = read(path)
    off = [lab for lab in config.off_for if lab != args.lab] + ([args.lab] if args.turn == "off" else [])
    write(path, replace(config, off_for=tuple(off)), mode=path.stat().st_mode & 0o777)
    print(f"course tutor: {'off' if args.lab in off else 'on'} for {args.lab} ({path})")
    return 0


def counts(args) -> int:
    from coursekit.tutor.usage import counts as tally

    folder = Path(args.asks_dir or (read(Path(args.class_config)).asks_dir if args.class_config else "") or "")
    if not folder.is_dir():
        raise TutorConfigError(f"{folder}: no such folder of question counts (--asks-dir or the class config's asks_dir)")
    rows = tally(folder)
    print(f"{'lab':<18} {'task':<20} {'questions':>9} {'students':>8}")
    for lab, task, asked, learners in rows:
        print(f"{lab:<18} {task or '(no task)':<20} {asked:>9} {learners:>8}")
    return 0


def run(args) -> int:
    try:
        return args.tutor_handler(args)
    except (TutorConfigError, OSError) as error:
        print(f"course tutor: {error}", file=sys.stderr)
        return 2


def register(sub) -> None:
    tutor = sub.add_parser("tutor", help="the tutor: set it up, see its configuration, turn it off for a lab")
    commands = tutor.add_subparsers(dest="tutor_command", required=True)
    p = commands.add_parser("setup", help="point the tutor at an OpenAI-compatible endpoint")
    p.add_argument("--endpoint", required=True, help="base URL, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--model", required=True, help="the model name the endpoint serves")
    p.add_argument("--key-file", help="a file holding the API key (the key is never written to the config)")
    p.add_argument("--key-env", help="or an environment variable holding it")
    p.add_argument("--rate-per-hour", type=int, help="questions per learner per hour (a class)")
    p.add_argument("--max-tokens", type=int, help="longest reply, in tokens (default 400)")
    p.add_argument("--class-config", help="write the class's file (e.g. <hub data>/tutor.json) instead of yours")
    p.add_argument("--count-asks", action="store_true", help="a class: count questions per task (never their text)")
    p.add_argument("--asks-dir", help="with --count-asks: where students' servers write the counts")
    p.set_defaults(tutor_handler=setup)
    p = commands.add_parser("status", help="say how the tutor is configured, or that it is off")
    p.set_defaults(tutor_handler=status)
    for name, help_text in (("off", "turn the tutor off for a lab (e.g. during a graded test)"),
                            ("on", "turn it on again for a lab")):
        p = commands.add_parser(name, help=help_text)
        p.add_argument("lab", help="lab id, e.g. lab3-kv-cache")
        p.add_argument("--class-config", help="the class's file (default: COURSE_TUTOR_CONFIG, else yours)")
        p.set_defaults(tutor_handler=switch, turn=name)
    p = commands.add_parser("counts", help="which tasks students asked about, most first (counts only)")
    p.add_argument("--asks-dir", help="the folder of counts (default: the class config's asks_dir)")
    p.add_argument("--class-config", help="the class's tutor.json")
    p.set_defaults(tutor_handler=counts)
    tutor.set_defaults(handler=run)
