"""The price table (coursekit.prices): every entry, old or new, has a source and a readable date; the
current entries exist for the chips and providers the course compares; `--stale` lists old entries."""
from __future__ import annotations

import datetime as dt
import re

import pytest

from coursekit import hardware, prices

ENTRIES = prices.all_entries()


def _label(p):
    return f"{getattr(p, 'chip', None) or p.model} ({p.date})"


@pytest.mark.parametrize("entry", ENTRIES, ids=_label)
def test_every_price_has_a_source_and_a_date(entry):
    assert len(entry.source) > 30 and re.search(r"\b20[12]\d\b", entry.source), f"{_label(entry)}: no dated source"
    assert prices.entry_date(entry.date) <= dt.date(2026, 12, 31)
    if isinstance(entry, prices.RentalPrice):
        assert entry.chip in hardware.BY_NAME and entry.dollars_per_hour > 0
    else:
        assert 0 < entry.input_per_m <= entry.output_per_m


def test_all_entries_finds_every_list_and_dict():
    ids = {id(p) for p in ENTRIES}
    for group in [prices.RENTALS.values(), prices.CURRENT_RENTALS.values(), prices.NEOCLOUD_H100,
                  prices.API_PRICES.values(), prices.API_HISTORY, prices.API_PRICES_2025]:
        assert all(id(p) in ids for p in group)


def test_current_entries_cover_what_the_course_compares():
    for chip in ["NVIDIA H100 SXM", "NVIDIA B200 (DGX B200)", "AMD Instinct MI300X", "Google TPU v5p",
                 "Google TPU v6e (Trillium)", "AWS Trainium2"]:
        assert prices.entry_date(prices.current_rental(chip).date) >= dt.date(2023, 12, 1)
    assert len(prices.NEOCLOUD_H100) >= 2
    assert len({p.model.split()[0] for p in prices.API_PRICES_2025}) >= 3     # three providers
    # the 2025 cut: the same p5.48xlarge is 44% cheaper than at launch; GPU clouds cheaper still
    cut = prices.AWS_P5_H100_2025.dollars_per_hour / prices.AWS_P5_H100.dollars_per_hour
    assert cut == pytest.approx(55.04 / 98.32)
    assert all(p.dollars_per_hour < prices.AWS_P5_H100_2025.dollars_per_hour for p in prices.NEOCLOUD_H100)
    with pytest.raises(KeyError, match="no current rental price"):
        prices.current_rental("NVIDIA L40S")


def test_a_missing_date_is_refused_with_the_file_named():
    with pytest.raises(ValueError, match="coursekit/prices.py: cannot read the date"):
        prices.entry_date("")
    assert prices.entry_date("2023") == dt.date(2023, 12, 31)
    assert prices.entry_date("June 2025") == dt.date(2025, 6, 30)


def test_stale_lists_entries_older_than_twelve_months():
    on = dt.date(2025, 9, 1)
    stale = prices.stale_entries(on)
    assert prices.AWS_P5_H100 in stale and prices.GPT4O_MINI in stale
    assert prices.AWS_P5_H100_2025 not in stale and prices.API_PRICES_2025[0] not in stale
    assert prices.stale_entries(dt.date(2024, 2, 29))     # a leap day still has a cut-off
    with pytest.raises(ValueError, match="multiple of 12"):
        prices.stale_entries(on, months=5)


def test_stale_command_prints_a_count(capsys):
    assert prices.main(["--stale"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"\d+ of \d+ price entries are older than 12 months", out)


def test_stale_entries_are_named_by_file_and_entry(capsys):
    names = [prices.entry_name(p) for p in prices.stale_entries(dt.date(2025, 11, 27))]
    assert "AWS_P5_H100" in names and "API_HISTORY[0]" in names          # a variable, or its list and index
    assert "AWS_P5_H100_2025" not in names and "API_PRICES_2025[0]" not in names
    names = [prices.entry_name(p) for p in prices.stale_entries(dt.date(2026, 11, 27))]
    assert {"AWS_P5_H100_2025", "API_PRICES_2025[0]", "API_HISTORY[0]"} <= set(names)
    assert all(not n.startswith(("<", "RentalPrice", "ApiPrice")) for n in names)
    prices.main(["--stale"])
    out = capsys.readouterr().out
    assert "coursekit/prices.py  AWS_P5_H100 " in out


def test_course_doctor_reports_stale_prices_by_file_and_entry():
    from coursekit.app.doctor import check_prices

    c = check_prices()
    assert c.ok                                       # a maintenance notice, not a broken install
    stale = prices.stale_entries()
    if stale:
        assert prices.FILE in c.detail and f"{len(stale)} of {len(prices.all_entries())}" in c.detail
        assert all(f"{prices.entry_name(p)} ({p.date})" in c.detail for p in stale)


def test_2025_api_prices_feed_the_yearly_factor():
    # Flagship output flat from August 2024 to 2025; input halved at OpenAI
    assert prices.yearly_price_factor("GPT-4o (2024-08-06)", "GPT-5", "output") == pytest.approx(1.0)
    assert prices.yearly_price_factor("Claude 3.5 Sonnet", "Claude Sonnet 4.5", "output") == pytest.approx(1.0)
    assert prices.yearly_price_factor("GPT-4o (2024-08-06)", "GPT-5", "input") > 1.9
    assert prices.yearly_price_factor("GPT-4o mini", "GPT-5 mini", "output") < 1     # the small model got dearer
    assert prices.yearly_price_factor("GPT-4 (8K)", "GPT-5") < prices.yearly_price_factor("GPT-4 (8K)", "GPT-4o (2024-08-06)")
