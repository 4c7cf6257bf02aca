"""The four gates (rules ``gate12``, ``gate3``, ``gate4``) and their verdict type: ``form``
(gate 1's candidate form), ``isolated`` (gates 1-2 of one candidate, from one jailed child),
``errprofile`` (gate 2's error profile), ``model`` (gate 3), ``speed`` (gate 4); ``sandbox``
(the judge's side) and ``child`` (the jailed process) are where candidate code runs, inside the
operating-system boundary of ``runner/jail.py`` and talking through ``runner/wire.py``;
``watch`` is what the child records as evidence, ``faults`` what is infrastructure; ``stage``
holds the rule entry points.
"""
