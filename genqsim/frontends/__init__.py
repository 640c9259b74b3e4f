"""Front doors: genqsim behind the interfaces of the frameworks users already have (Qiskit's
V2 primitives and ``BackendV2``, a Cirq simulator). Each module imports its framework; the
public names are in :mod:`genqsim.qiskit` and :mod:`genqsim.cirq`."""
