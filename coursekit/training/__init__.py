"""Module 7's parallel trainer: a counting communicator, a launcher of real torch.distributed ranks, and the
course's reference trainers (docs/TRAINING.md)."""
