"""The progress file's validator for the browser, made at build time: coursekit/progress.schema.json
compiled by ajv (npm, pinned by package.json; installed with the site's other scripts) into a standalone
script, static/progress-format.js's checker. The page runs the compiled code: no ajv, no network, nothing
evaluated at view time, so it works from file:// too."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from coursekit.progress_schema import SCHEMA_FILE

from .assets import NODE_MODULES

SCRIPT = "progress-validator.js"        # in the site's _static folder
COMPILER = Path(__file__).with_name("compile-schema.js")


def validator_js(node_modules: Path = NODE_MODULES) -> str:
    """The compiled validator's source; RuntimeError saying how to get node and ajv when they are missing."""
    node = shutil.which("node")
    if node is None or not (node_modules / "ajv" / "package.json").is_file():
        raise RuntimeError(f"{'node' if node is None else node_modules / 'ajv'} not found: the website's progress "
                           f"validator is compiled by ajv from npm; run ./course.sh site (it runs `npm ci` in "
                           f"{node_modules.parent})")
    done = subprocess.run([node, str(COMPILER), str(SCHEMA_FILE)], capture_output=True, text=True,
                          cwd=node_modules.parent, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"compiling {SCHEMA_FILE.name} with ajv failed:\n{done.stderr[-2000:]}")
    return done.stdout


def write_validator(static: Path) -> Path:
    """static/progress-validator.js, rewritten only when it changed (Sphinx watches file times)."""
    static.mkdir(parents=True, exist_ok=True)
    target, text = static / SCRIPT, validator_js()
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")
    return target
