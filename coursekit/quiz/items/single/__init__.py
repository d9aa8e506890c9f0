"""type: single -- one right option among several, chosen with radio buttons or one letter."""
from pathlib import Path

from ..registry import register
from .model import Single
from .notebook import SingleNotebook
from .widget import SingleWidget

HERE = Path(__file__).parent
register(Single, SingleWidget, SingleNotebook, [HERE.parent / "choice.js", HERE / "site.js"])
