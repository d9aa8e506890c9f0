"""The instructor's grading pipeline, one folder per stage (docs/DESIGN.md draws the data flow):

    author/   new lab, validate it       release/  student version, visible cases, exchange
    collect/  submissions into submitted/ sandbox/  confine a child, run the student's cells
    judge/    the trusted engine, references, hidden cases, secret, static flags
    batch/    one loop over an assignment's submissions (here or on Dask)
    record/   results store, gradebook, autograded notebooks, status, reports, exports
    quiz/     the graded-quiz kind of assignment (labs are the other kind: spec.py)

Shared by every stage: course.py (the nbgrader course folder) and spec.py (a lab's contract).
"""
