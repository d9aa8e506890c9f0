"""One calculator on a page of its own (the block the site inlines, no site build), in Chromium: the
batch the M4 L1 calculator reports, its citations, its slider after an invalid value, and the roofline's
outputs an out-of-range intensity does not affect."""
from __future__ import annotations

import pytest

from calculators_ui import box, read, slider
from coursekit.app.site import calculators as calc

pytestmark = [pytest.mark.browser]


@pytest.fixture
def open_calc(browser, tmp_path):
    contexts = []

    def opener(calc_id: str):
        page_file = tmp_path / f"{calc_id}.html"
        page_file.write_text("<!doctype html><html lang='en'><head><meta charset='utf-8'><title>t</title></head>"
                             f"<body>{calc.page_block(calc.calculators()[calc_id])}</body></html>", encoding="utf-8")
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(page_file.as_uri())
        section = page.locator(f"section.ck-calc[data-calculator='{calc_id}']")
        section.locator("dd[data-value]").first.wait_for()
        return page, section

    yield opener
    for c in contexts:
        c.close()


def until_inputs(page, calc_id: str, name: str, value) -> None:
    page.wait_for_function("([id, n, v]) => JSON.parse(document.querySelector(`section[data-calculator='${id}']`)"
                           ".getAttribute('data-inputs'))[n] === v", arg=[calc_id, name, value])


def test_breakeven_reports_the_batch_used_and_one_line_per_source(open_calc):
    page, s = open_calc("breakeven")
    label = s.locator("dd[data-output=batch_served]").locator("xpath=preceding-sibling::dt[1]").inner_text()
    assert label.startswith("Batch used")
    box(s, "Batch (sequences)").fill("512")        # more than fit beside Llama 2 70B on 4 H100s
    until_inputs(page, "breakeven", "batch", 512)
    inputs, outputs = read(s)
    used = outputs["batch_served"]
    assert used < 512 and used == calc.reference("breakeven", inputs)["batch_served"]
    lines = s.locator("[data-source] .ck-source-line")
    assert lines.count() == 2                     # the model's source and the chip's, each on its own line
    tops = [lines.nth(i).bounding_box()["y"] for i in range(2)]
    assert tops[1] > tops[0]


def test_arrow_key_after_an_invalid_value_steps_from_the_last_valid_one(open_calc):
    page, s = open_calc("breakeven")
    b, sl = box(s, "Batch (sequences)"), slider(s, "Batch (sequences)")
    b.fill("100")
    until_inputs(page, "breakeven", "batch", 100)
    b.fill("0")                                   # below the minimum: refused, the slider stays at 100
    s.get_by_role("alert").wait_for()
    assert sl.input_value() == "100"
    b.press("ArrowUp")                            # the browser alone would step 0 to the minimum, 1
    until_inputs(page, "breakeven", "batch", 101)
    assert (b.input_value(), sl.input_value()) == ("101", "101")


def test_roofline_keeps_the_outputs_an_out_of_range_intensity_does_not_affect(open_calc):
    page, s = open_calc("roofline")
    _, before = read(s)
    box(s, "Arithmetic intensity (FLOP/byte)").fill("0")
    s.get_by_role("alert").wait_for()
    _, after = read(s)
    for kept in ("ridge", "peak", "bandwidth"):
        assert after[kept] == pytest.approx(before[kept], rel=1e-12), kept
    for blank in ("attainable", "bound", "share"):
        assert after[blank] in (None, ""), blank
    assert "0.1" in s.get_by_role("alert").inner_text()
