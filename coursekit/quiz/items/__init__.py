"""Item types: each a class in its own module (single, multi, numeric, param), found by name in
ITEM_TYPES. The bank reader, the engine, the self-test, the widget, the graded quiz and the website
export all call the item's type here instead of branching on its name; a new type is one more
module with one @register class (docs/QUIZ-FORMAT.md, "Adding an item type")."""
from .base import ITEM_TYPES, ItemType, item_type, register

__all__ = ["ITEM_TYPES", "ItemType", "item_type", "register"]
