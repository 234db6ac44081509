"""Adapters that let other frameworks use memvault (each a thin skin over the engine)."""
