"""LLM providers: each turns one rendered prompt into class probabilities (see ``base.Provider``).

Build them with ``backend.providers.registry.make_provider``.
"""
