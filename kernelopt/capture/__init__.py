"""Stage 1, capture (rule ``capture``): build the model, compile it once with max-autotune in
caches private to the problem, and save what every later stage needs (the wrapper module, the
post-grad FX graph, every kernel with its eager reference, every launch, profiles, times), so
that nothing downstream recompiles.  Entry points: ``stage.run_or_record_failure``.
"""
