"""The course's reference engine, laid out as nano-vllm lays out its `engine/` package (docs/SERVING.md):

- `serving_engine.py`: the engine: model passes over the scheduler's plan and the work after each step;
  `MILESTONES` and `milestone_engine` switch it milestone by milestone;
- `scheduler.py`: who runs this step and how many tokens (queues, admission, preemption, token budget);
- `block_manager.py`: block tables, reference counts, copy-on-write, the prefix index and prefix cache.

One package, so that Lab 6's rule forbidding `coursekit.serving.engine` while a learner's engine is graded
covers all three files.
"""
from .serving_engine import MILESTONES, EngineConfig, ServingEngine, milestone_engine

__all__ = ["MILESTONES", "EngineConfig", "ServingEngine", "milestone_engine"]
