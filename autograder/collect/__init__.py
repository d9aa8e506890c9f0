"""Collect: submissions from a folder, an LMS zip or the exchange into submitted/, read safely
(regular files only) and dated for lateness."""
