"""Stage 3, isolate (rules ``isolate``, ``isolated``): per unit, the launch contract, Inductor's
kernel as a standalone candidate, the eager reference, and the harness that builds the unit's
real inputs for any seed and runs a candidate on them.  Entry points: ``stage.run``,
``stage.summarize``; the harness (``harness``) is what gates, search and select run candidates with.
"""
