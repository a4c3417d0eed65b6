"""Pictures of what the GPU did, from a run's trace: warp timelines and stall breakdowns (python -m tools.timeline)."""
