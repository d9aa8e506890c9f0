"""Record and export: the results store, nbgrader's gradebook and autograded notebooks, and what is
read from them (status, reports, CSV exports, accessible feedback pages)."""
