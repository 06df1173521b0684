"""The cb2026 chess engine."""
