"""Every figure of the report checked against a known truth: planted projects run through the report's own code.

One module per concern: :mod:`.projects` (configs of every family and a planted truth with annotators of known
accuracy), :mod:`.judges` (judges of known quality, verdicts by the product's rule), :mod:`.designs` (the review
designs and experts of known quality, written to the review store), :mod:`.pipeline` (one replicate: ledger →
sources → sections → JSON), :mod:`.figures` (what the JSON printed and what it should have), :mod:`.coverage`
(bias and coverage over replicates), :mod:`.table` (the Markdown table in docs/statistics.md). Run it with
``python -m bench.simulate`` (see :mod:`bench.simulate.__main__`).
"""
