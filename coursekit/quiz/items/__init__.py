"""Item types: each one folder (single/, multi/, numeric/, param/) holding its model (model.py), its
JupyterLab widget (widget.py), its graded-notebook rendering (notebook.py) and its browser code (site.js),
registered by the folder's __init__.py. The bank reader, the engine, the self-test, the widget, the graded
quiz and the website look the type up in ITEM_TYPES instead of branching on its name; a new type is one
more folder (docs/QUIZ-FORMAT.md, "Adding an item type")."""
from .base import ItemModel, NotebookView, WidgetView
from .registry import ITEM_TYPES, ItemKind, item_type, notebook_view, register, site_scripts, widget_view

__all__ = ["ITEM_TYPES", "ItemKind", "ItemModel", "NotebookView", "WidgetView", "item_type", "notebook_view",
           "register", "site_scripts", "widget_view"]
