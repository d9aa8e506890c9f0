"""Similarity of submissions (token fingerprints, winnowing): a report for instructors, never a grade."""
