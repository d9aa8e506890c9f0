"""Graded quizzes, judged like labs: the instructor's side of a question bank.

assignment (release: source notebook, nbgrader generate, one personalized copy per student)
-> answers (the answers cell read as data, never executed) -> scoring (the student's draw and keys,
recomputed here from the bank and the secret) -> grade (results store, autograded notebook, gradebook)
-> analytics (item statistics). The student's side (widgets, self-paced engine, progress) stays in
coursekit.quiz; nothing here runs in a process that runs student code.
"""
