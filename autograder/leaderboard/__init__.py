"""`autograder leaderboard LAB`: graded submissions ranked by the grader's own speed measurements."""
