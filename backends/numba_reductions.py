"""Reductions: probabilities (all, or a marginal), norms, inner products and ``<bra| X^x Z^z
|ket>``."""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange

from . import numba_cache  # noqa: F401  (first: where Numba keeps this module's kernels)
from .numba_common import _base, _kernel, _parity

# -- reductions ----------------------------------------------------------------------------------


@_kernel
def probabilities_full(state, out):
    for i in prange(state.size):
        a = state[i]
        out[i] = a.real * a.real + a.imag * a.imag


@_kernel
def probabilities_marginal(state, qubits, partial):
    """Per-thread histograms in ``partial[thread]``; the caller sums them."""
    for i in prange(state.size):
        a = state[i]
        key = 0
        for pos in range(qubits.size):
            key |= ((np.int64(i) >> qubits[pos]) & 1) << pos
        partial[nb.get_thread_id(), key] += a.real * a.real + a.imag * a.imag


@_kernel
def norm_squared(state):
    total = 0.0
    for i in prange(state.size):
        a = state[i]
        total += np.float64(a.real) * a.real + np.float64(a.imag) * a.imag
    return total


@_kernel
def inner(a, b):
    re = 0.0
    im = 0.0
    for i in prange(a.size):
        x = a[i]
        y = b[i]
        re += np.float64(x.real) * y.real + np.float64(x.imag) * y.imag
        im += np.float64(x.real) * y.imag - np.float64(x.imag) * y.real
    return complex(re, im)


@_kernel
def transition_xz(bra, ket, x_mask, z_mask, fixed, fixed_value):
    """``<bra| X^x Z^z |ket>`` over the subspace whose ``fixed`` bits (sorted; control qubits,
    disjoint from ``x_mask``) hold ``fixed_value``, without copying either state: an
    expectation value (``bra is ket``, nothing fixed), or a gradient term of the adjoint sweep
    (``Im <lambda| P |psi>`` under a rotation's controls)."""
    re = 0.0
    im = 0.0
    for i in prange(ket.size >> fixed.size):
        j = _base(np.int64(i), fixed, fixed_value) if fixed.size else np.int64(i)
        sign = 1.0 - 2.0 * _parity(j & z_mask)
        a = bra[j ^ x_mask]
        b = ket[j]
        re += sign * (np.float64(a.real) * b.real + np.float64(a.imag) * b.imag)
        im += sign * (np.float64(a.real) * b.imag - np.float64(a.imag) * b.real)
    return complex(re, im)


@_kernel
def pauli_strings_points(states, x_masks, z_masks, out):
    """``out[p, t] = <psi_p| X^x_t Z^z_t |psi_p>`` for every row ``p`` of ``states`` and every
    string ``t``, one pass over the state per string with the sums in registers (a state of
    a sweep stays in cache for all its strings). The threads share out the points."""
    for p in prange(states.shape[0]):
        psi = states[p]
        for t in range(x_masks.size):
            x = x_masks[t]
            z = z_masks[t]
            re = 0.0
            im = 0.0
            for j in range(psi.size):
                sign = 1.0 - 2.0 * _parity(j & z)
                a = psi[j ^ x]
                b = psi[j]
                re += sign * (np.float64(a.real) * b.real + np.float64(a.imag) * b.imag)
                im += sign * (np.float64(a.real) * b.imag - np.float64(a.imag) * b.real)
            out[p, t] = complex(re, im)
