"""Loading: a kernel over a scan's fact files with the scanner's authority, the compiled cache and its MAC, signatures, presets."""
