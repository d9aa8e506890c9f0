"""The LTI 1.3 protocol as this course speaks it, below both its users: the hub's launch handlers
(coursekit/app/hub/lti/) and the grader's passback (autograder/lms/). Claims and scopes (claims.py), course
roles (roles.py), the Unix name from a claim (names.py), the platform settings (platform.py), the tool's
keys (keys.py) and the client for the LMS's services (client.py). Nothing here imports JupyterHub or
tornado: `autograder lms` runs where no hub is installed (tests/app/lti/test_lti_protocol.py)."""
