"""The incremental JS/TS scanner: source files in, one [code] fact file per file out."""
