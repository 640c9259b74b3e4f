"""What every layer uses and none owns: optional imports with install hints, memory checks,
argument validation, progress bars, and SymPy type checks that never import SymPy."""
