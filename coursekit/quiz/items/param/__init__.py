"""type: param -- a numeric item whose inputs are drawn per learner and attempt (its seed). Only its model
differs from numeric's: it is answered, shown in a notebook and graded in the browser as a number is."""
from pathlib import Path

from ..numeric.notebook import NumericNotebook
from ..numeric.widget import NumericWidget
from ..registry import register
from .model import Param

register(Param, NumericWidget, NumericNotebook, [Path(__file__).parents[1] / "numeric" / "site.js",
                                                  Path(__file__).with_name("site.js")])
