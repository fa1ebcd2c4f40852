"""Tests for stats_cli (the audit-stats library and offline commands)."""
