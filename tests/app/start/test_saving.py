"""coursekit.app.saving: the pre-save hook `course start` installs saves widget views as a "run this
cell" note, and leaves every other output and file alone."""
from __future__ import annotations

import copy

import nbformat

from coursekit.app.saving import QUIZ_NOTE, WIDGET_NOTE, WIDGET_VIEW, pre_save_hook, replace_widget_views


def widget_output(model_id: str = "abc") -> dict:
    return {"output_type": "display_data", "metadata": {},
            "data": {"text/plain": "VBox(children=(HTML(value='...'),))",
                     WIDGET_VIEW: {"version_major": 2, "version_minor": 0, "model_id": model_id}}}


def notebook(*cells) -> dict:
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nbformat.from_dict(nb)


def test_quiz_views_become_one_run_this_cell_note_and_other_outputs_stay():
    printed = {"output_type": "stream", "name": "stdout", "text": "drawn 3 questions\n"}
    quiz = nbformat.v4.new_code_cell("from coursekit.quiz import show_quiz\nshow_quiz('m1-l1')")
    quiz.outputs = [printed, widget_output("a"), widget_output("b")]
    slider = nbformat.v4.new_code_cell(["dashboard = CostDashboard(", "cost)"])
    slider.outputs = [widget_output("c")]
    text = nbformat.v4.new_code_cell("print(1)")
    text.outputs = [{"output_type": "stream", "name": "stdout", "text": "1\n"}]
    nb = notebook(nbformat.v4.new_markdown_cell("# Quiz"), quiz, slider, text)
    untouched = copy.deepcopy(text.outputs)

    assert replace_widget_views(nb) == 3
    _, quiz, slider, text = nb.cells
    assert quiz.outputs[0] == printed
    assert [o["data"] for o in quiz.outputs[1:]] == [{"text/plain": QUIZ_NOTE}]
    assert [o["data"] for o in slider.outputs] == [{"text/plain": WIDGET_NOTE}]
    assert text.outputs == untouched
    nbformat.validate(nb)                         # still a valid notebook on disk


def test_hook_changes_notebook_models_only():
    cell = nbformat.v4.new_code_cell("show_module_test('m1')")
    cell.outputs = [widget_output()]
    model = {"type": "notebook", "content": notebook(cell)}
    pre_save_hook(model=model, path="x.ipynb", contents_manager=None)
    assert model["content"]["cells"][0]["outputs"][0]["data"] == {"text/plain": QUIZ_NOTE}
    text_file = {"type": "file", "content": WIDGET_VIEW, "format": "text"}
    pre_save_hook(model=text_file, path="notes.txt", contents_manager=None)
    assert text_file["content"] == WIDGET_VIEW
