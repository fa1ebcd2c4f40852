"""RQ jobs that score Label Studio tasks with the ensemble and import their predictions."""
