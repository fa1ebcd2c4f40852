"""Gullibility probes (seed 003): test each LLM judge on items that deserve the negative label but
carry the query's words or a planted instruction, before trusting its flags.

Modules: ``wordlist`` (random-word source), ``layout`` (which field is stuffed, per task family),
``construct`` (probe items), ``metrics`` (MAE, share positive, p(positive)), ``run`` (scoring through
the engine, fenced or unfenced), ``report`` (JSON and table), ``pipeline`` (all of it for one run),
``store`` (latest results in the audit database, read by `audit-stats report`).

The planted-instruction probe works for any single-label task (no layout, no negative class needed):
``planted`` (sample, planted label, probe item), ``planted_metrics`` (success rate with an exact interval,
shift of p(planted label)), ``planted_run`` (two engine passes, report, table).
"""
