"""The confident-learning member: cross-validated probabilities of a classifier trained on the project's labels."""
