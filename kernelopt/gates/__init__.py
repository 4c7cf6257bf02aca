"""The four gates (rules ``gate12``, ``gate3``, ``gate4``) and their verdict type: ``rules``
(gate 1's static rules), ``isolated`` (gates 1-2 of one candidate, from one sandboxed child),
``model`` (gate 3), ``speed`` (gate 4); ``sandbox`` and ``child`` are where candidate code
runs, ``exchange`` how its tensors cross, ``watch`` what it may launch, ``faults`` what is
infrastructure; ``stage`` holds the rule entry points.
"""
