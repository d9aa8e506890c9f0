"""Release: the student version of a lab or quiz (only what the allowlist names), its visible cases
file, and nbgrader's exchange limited to the same allowlist."""
