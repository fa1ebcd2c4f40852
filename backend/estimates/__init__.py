"""Pure estimators of a project's label-error rate: exact bounds, stratified intervals, the judge-assisted estimate.

They sit at the bottom of the layers (beside ``backend/common/``) because two layers use them: the review push
(``review push --until-width`` stops when the judge-assisted interval is narrow enough) and ``audit-stats``
(which reads them through ``backend/api.py``; ``stats_cli/stats/`` keeps a name for each that points here).
Plain numbers in, figures out: no store, no Label Studio, no settings.
"""
