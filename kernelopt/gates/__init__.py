"""The four gates (rules ``gate1``..``gate4``) and their verdict type: ``static`` (gate 1),
``isolated`` (gate 2), ``model`` (gate 3), ``speed`` (gate 4); ``child`` runs gates 1-2 in a
process of their own; ``stage`` holds the rule entry points.
"""
