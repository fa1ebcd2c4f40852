"""The task families: one module per label type, each a :class:`backend.task.family.TaskFamily`.

They sit above the task model (:mod:`backend.task`), the engine (:mod:`backend.scoring`) and the span
auditor (:mod:`backend.spans`), which they combine; the registry in :mod:`backend.task.family` imports
them by name on first use, so nothing below needs to import this folder.
"""
