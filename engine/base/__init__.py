"""The kernel's non-Datalog helpers, standard library only: safe file writes and reads, the error types, execution events, the collector's pause."""
