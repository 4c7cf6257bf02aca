"""Stages 4-5, the search (rules ``synthesize``, ``seed_beam``, ``profile``, ``expand``,
``retry``, ``select_iter``): independent synthesis (``synth/``), then a beam of candidates per
unit improved over chained iterations by the agent roles (``agents/``) with profiles
(``profiler``) and source transformations (``transform``).  Entry points in ``stage``.
"""
