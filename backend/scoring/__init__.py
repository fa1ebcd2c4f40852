"""The scoring core: members (provider x prompt), the engine and its calls (cache, retry, breaker, budget),
the ensemble verdict and the result records. It judges single-choice questions; the task families
(:mod:`backend.task`) turn every label type into such questions and back."""
