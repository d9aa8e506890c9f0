"""What the course's JupyterLab writes when it saves a notebook: no widget views a reopened notebook
cannot show.

A quiz is an ipywidgets view of a model that lives in the kernel. JupyterLab saves the view's
reference (a model id) but not the model, so a reopened lesson showed "Error displaying widget:
model not found" where the quiz was. `course start` installs `pre_save_hook` as the contents
manager's pre-save hook: each widget-view output is saved as a short plain-text note saying to run
the cell again. The open notebook keeps its live widgets; only the file on disk changes.
"""
from __future__ import annotations

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
QUIZ_CALLS = ("show_quiz(", "show_module_test(")
QUIZ_NOTE = "Quiz: run this cell to take the quiz (your earlier answers are kept in your progress)."
WIDGET_NOTE = "Interactive output: run this cell to show it again."


def note_for(source: str) -> dict:
    """The output that stands in for a widget view of the cell with `source`."""
    text = QUIZ_NOTE if any(call in source for call in QUIZ_CALLS) else WIDGET_NOTE
    return {"output_type": "display_data", "metadata": {}, "data": {"text/plain": text}}


def replace_widget_views(notebook: dict) -> int:
    """Replace, in place, each widget-view output of `notebook` (nbformat 4 JSON) by a note (one per
    cell); return how many outputs were replaced."""
    replaced = 0
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        outputs, noted = [], False
        for output in cell.get("outputs", []):
            if WIDGET_VIEW not in (output.get("data") or {}):
                outputs.append(output)
                continue
            replaced += 1
            if not noted:  # one note per cell, where the first view was
                outputs.append(note_for(source))
                noted = True
        cell["outputs"] = outputs
    return replaced


def pre_save_hook(model: dict, **kwargs) -> None:
    """jupyter_server's ContentsManager.pre_save_hook: called with the model about to be written."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        replace_widget_views(model["content"])
