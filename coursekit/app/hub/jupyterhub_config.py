"""Loaded by `jupyterhub -f`: the class's settings are in $COURSE_HUB_DATA/hub.json (see coursekit/app/hub/config.py)."""
import os

from coursekit.app.hub.config import configure

configure(get_config(), os.environ["COURSE_HUB_DATA"])  # noqa: F821  (get_config is injected by jupyterhub)
