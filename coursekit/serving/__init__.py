"""Module 6's mini inference engine: the course's reference engine, its naive baseline and the harness.

Every engine has the same small interface (`coursekit.serving.request.Engine`): add_request(prompt_tokens,
max_new_tokens, arrival_time) -> request id; step() -> StepOutput (new tokens per request, and which
finished); has_unfinished(); kv_blocks_in_use. One harness (`harness.py`) drives every milestone, and
the clock is the harness's, never the engine's. docs/SERVING.md has the plan and the milestones.
"""
