"""type: numeric -- a number computed by course code, accepted within a tolerance, with feedback for
the common mistakes; typed with its units or scale words and read by numbers.py."""
from pathlib import Path

from ..registry import register
from .model import Numeric
from .notebook import NumericNotebook
from .widget import NumericWidget

register(Numeric, NumericWidget, NumericNotebook, [Path(__file__).with_name("site.js")])
