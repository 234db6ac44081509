"""Benchmarks behind ``memvault bench …``: each prints a table and writes JSON.

They call the engine like any other interface; the numbers they print are
the ones quoted in docs and issue notes.
"""
