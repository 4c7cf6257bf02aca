"""The end of the pipeline (rules ``result``, ``stages_report``, ``report``): one
``result.json`` per problem, the run's tables, and the HTML report (``html``).  Entry points in
``stage``, ``tables`` and ``html``.
"""
