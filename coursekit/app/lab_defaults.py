"""The course's defaults for JupyterLab itself, given alike by `course start` and to every hub server.

- JupyterLab settings (`jupyterlab-settings/overrides.json`): no news pop-up asking to reach the
  internet, long code lines wrapped instead of cut off at 1280 px. A learner's own settings still win.
- The course's stylesheet (`jupyterlab-custom/`): printed output wraps between words, never inside a
  number; in student mode, a read-only tab keeps its close button after cells run (`student/custom.css`).
  JupyterLab serves /custom/<file> from the first folder of the server's `static_custom_path` that has
  it; that setting is not configurable on its own, but tornado_settings override it.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent
SETTINGS = HERE / "jupyterlab-settings"
CUSTOM = HERE / "jupyterlab-custom"


def lab_default_args(given: set[str] = frozenset(), mode: str = "instructor") -> list[str]:
    """Command-line options for a JupyterLab server in `mode` ("student" or "instructor"; hub servers get
    the instructor's look, which has nothing mode-specific); an option in `given` (the user's own) is
    left out."""
    folders = [str(CUSTOM / "student"), str(CUSTOM)] if mode == "student" else [str(CUSTOM)]
    args = {"--LabApp.app_settings_dir": str(SETTINGS), "--LabApp.custom_css": "True",
            "--ServerApp.tornado_settings": json.dumps({"static_custom_path": folders})}
    return [f"{name}={value}" for name, value in args.items() if name not in given]
