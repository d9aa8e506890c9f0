"""LTI 1.3: the course as a tool inside a university's LMS (docs/LMS.md).

Pure helpers (keys, the platform's settings, the username rule) that both the hub and the instructor's
`autograder lms` use; nothing here imports JupyterHub or autograder.
"""
