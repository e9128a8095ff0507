"""One module per `rofl` subcommand; each exposes a click command named ``command``."""
