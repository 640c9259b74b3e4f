"""Working with results: symbolic helpers (:mod:`.symbolic`: simplify, lambdify,
conversions) and rigorous error bounds of machine-number runs (:mod:`.errorbound`)."""
