"""Small PyTorch models the labs build from configs with random weights."""
