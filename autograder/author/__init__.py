"""Before release: write a lab (`autograder new`) and prove it grades correctly (`autograder validate`)."""
