"""Span labels (Label Studio ``<Labels>`` over ``<Text>``, i.e. NER): the family-independent pieces.

Offsets are Python code points everywhere inside (``text[start:end]``); :mod:`backend.spans.lsresult`
converts once at the Label Studio boundary.
"""
