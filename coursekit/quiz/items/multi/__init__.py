"""type: multi -- every right option and no other, chosen with checkboxes or a list of letters."""
from pathlib import Path

from ..registry import register
from .model import Multi
from .notebook import MultiNotebook
from .widget import MultiWidget

HERE = Path(__file__).parent
register(Multi, MultiWidget, MultiNotebook, [HERE.parent / "choice.js", HERE / "site.js"])
