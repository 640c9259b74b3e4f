"""Operators and the generic routines on state arrays, below the backends: Pauli sums
(:mod:`.pauli`), matrix observables (:mod:`.observables`) and the generic routines every
backend falls back to (:mod:`.generic`), written once for any number system."""
