"""OpenQASM 3 import of the common subset, through the reference ``openqasm3`` parser.

The supported subset is what OpenQASM 2 can say: ``qubit``/``bit`` declarations, the
``stdgates.inc`` gates, ``gate`` definitions, ``measure``, ``reset`` and ``barrier``. Each
statement is translated onto its own source line and read by the OpenQASM 2.0 reader, so
error messages keep the line numbers of the original file. Anything beyond the subset (gate
modifiers, classical variables and control flow, ``gphase``) is refused with its line.
"""

from __future__ import annotations

from typing import Any

from .lexer import QasmError
from .parser import loads

_RENAMED = {"phase": "p", "cphase": "cp"}


def _fail(node: Any, message: str, source: str | None) -> QasmError:
    span = getattr(node, "span", None)
    if span is None:
        return QasmError(message, source=source)
    return QasmError(message, span.start_line, span.start_column + 1, source)


def loads3(text: str, source: str | None = None):
    """A circuit from OpenQASM 3 text (needs ``pip install 'genqsim[qasm3]'``)."""
    try:
        import openqasm3
        from openqasm3 import ast
    except ImportError:
        raise QasmError(
            "reading OpenQASM 3 needs the openqasm3 parser: pip install 'genqsim[qasm3]'"
        ) from None
    try:
        program = openqasm3.parse(text)
    except Exception as exc:  # the reference parser's own error types vary by version
        raise QasmError(f"OpenQASM 3 syntax error: {exc}", source=source) from None

    def expr(node: Any) -> str:
        return openqasm3.dumps(node).replace("**", "^").replace("π", "pi")

    def qubit(node: Any) -> str:
        if isinstance(node, ast.Identifier):
            return node.name
        if isinstance(node, ast.IndexedIdentifier) and len(node.indices) == 1:
            (index,) = node.indices
            index = list(index)  # type: ignore[arg-type]  # a discrete set or a list of one
            if len(index) == 1 and isinstance(index[0], ast.IntegerLiteral):
                return f"{node.name.name}[{index[0].value}]"  # type: ignore[union-attr]
        raise _fail(node, "only single integer indices are supported", source)

    def gate_call(node: Any) -> str:
        if node.modifiers:
            raise _fail(node, "gate modifiers (ctrl @, inv @, pow @) are not supported", source)
        name = _RENAMED.get(node.name.name, node.name.name)
        args = f"({', '.join(expr(a) for a in node.arguments)})" if node.arguments else ""
        return f"{name}{args} {', '.join(qubit(q) for q in node.qubits)};"

    def statement(node: Any) -> str:
        if isinstance(node, ast.Include):
            if node.filename != "stdgates.inc":
                raise _fail(node, f"cannot include {node.filename!r}", source)
            return 'include "qelib1.inc";'
        if isinstance(node, ast.QubitDeclaration):
            size = 1 if node.size is None else node.size.value  # type: ignore[attr-defined]
            return f"qreg {node.qubit.name}[{size}];"
        if isinstance(node, ast.ClassicalDeclaration):
            if not isinstance(node.type, ast.BitType) or node.init_expression is not None:
                raise _fail(node, "only uninitialised bit registers are supported", source)
            size = 1 if node.type.size is None else node.type.size.value  # type: ignore[attr-defined]
            return f"creg {node.identifier.name}[{size}];"
        if isinstance(node, ast.QuantumGate):
            return gate_call(node)
        if isinstance(node, ast.QuantumGateDefinition):
            params = f"({', '.join(a.name for a in node.arguments)})" if node.arguments else ""
            body = " ".join(statement(s) for s in node.body)
            qubits = ", ".join(q.name for q in node.qubits)
            return f"gate {node.name.name}{params} {qubits} {{ {body} }}"
        if isinstance(node, ast.QuantumMeasurementStatement):
            if node.target is None:
                raise _fail(node, "a measurement needs a target bit (c = measure q;)", source)
            return f"measure {qubit(node.measure.qubit)} -> {qubit(node.target)};"
        if isinstance(node, ast.QuantumReset):
            return f"reset {qubit(node.qubits)};"
        if isinstance(node, ast.QuantumBarrier):
            return f"barrier {', '.join(qubit(q) for q in node.qubits)};"
        kind = type(node).__name__
        raise _fail(node, f"{kind} is outside the supported OpenQASM 3 subset", source)

    lines: dict[int, list[str]] = {}
    for node in program.statements:
        line = node.span.start_line if node.span is not None else 0
        lines.setdefault(line, []).append(statement(node))
    last = max(lines, default=0)
    translated = "\n".join(" ".join(lines.get(i, [])) for i in range(1, last + 1))
    return loads(translated, source)
