"""One module per graded lab, each exposing SPEC: autograder.spec.LabSpec."""
