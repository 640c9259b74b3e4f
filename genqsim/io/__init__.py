"""Circuits in and out: OpenQASM 2 and 3 (:mod:`.qasm`) and the Qiskit and Cirq converters
(:mod:`.interop`). States are saved and loaded by :mod:`genqsim.states.storage`."""
