"""Judge: the trusted engine parses a submission, draws its cases from the instructor secret, runs it
in the sandbox and judges the child's report against the solution's reference outputs."""
