"""The rofl application: the command line and the questions users ask of scanned code."""

__version__ = "0.1.0"
