"""Module 7: the course's parallel trainers on real torch.distributed ranks (docs/TRAINING.md)."""
