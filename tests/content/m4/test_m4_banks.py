"""Module 4 question banks: an item priced with a dated list price says which price and when."""
from __future__ import annotations

from coursekit import prices
from coursekit.calc import levers
from coursekit.quiz.bank import pool
from coursekit.quiz.engine import grade, instantiate
from bank_items import BANKS



def test_module_test_aws_item_names_the_2023_price_the_lesson_calculator_does_not_default_to():
    # The module test draws this item; the lesson's calculator defaults to the 2025 price, so the stem
    # must name the price and its date or a learner's calculator answer is marked wrong.
    item = next(i for i in pool(BANKS["m4-test"], BANKS) if i.id == "m4-l2-batch")
    old = prices.dollars_per_hour("NVIDIA H100 SXM")
    assert old != prices.current_dollars_per_hour("NVIDIA H100 SXM")
    for seed in range(4):
        q = instantiate(item, seed)
        assert f"${old:.2f} per GPU-hour" in q.stem and "July 2023" in q.stem
        assert f"${old:.2f} an hour" in q.item.feedback["incorrect"].format(**q.names)
        right = levers.decode_cost_for(model="Llama 2 70B", chip="NVIDIA H100 SXM", gpus=4,
                                       batch=q.params["batch"], context=2048, utilization=0.5)
        assert grade(q, right).correct
