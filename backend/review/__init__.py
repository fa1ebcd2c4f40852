"""The blind expert review loop: push suspects to experts, reconcile disagreements, decide gold labels."""
