"""Where the tests find the repository: one place, so a test file's depth under tests/ never matters."""
from pathlib import Path

TESTS = Path(__file__).resolve().parent      # tests/, on sys.path (pyproject.toml's pythonpath)
ROOT = TESTS.parent                          # the checkout
