"""The end of the pipeline (rules ``result``, ``stages_report``, ``report``): one
``result.json`` per problem and the run's tables.  Entry points in ``stage``.
"""
