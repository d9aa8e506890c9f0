"""Run in the sandbox: what a grading child may see and use (policy), how it is confined (confine),
what passes between the engine, the warm worker and the child (protocol), and the untrusted
harness that runs the student's cells inside it. See docs/SANDBOX.md."""
