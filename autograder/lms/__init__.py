"""Grades back to the LMS through LTI 1.3 Assignment and Grade Services (`autograder lms`, docs/LMS.md)."""
