"""Shared fixtures (placeholder until its owner lands them)."""
