"""What is read from a right-canonical MPS without changing it: local operator
expectations and correlations by transfer matrices, marginal distributions, exact sampling
site by site, and single amplitudes.

Right-canonical form makes everything right of the last site involved contract to the
identity and everything left of the first site to ``diag(S**2)``, so each quantity costs only
the sites it touches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .network import Network


def operator_expectation(net: Network, operators: Mapping[int, np.ndarray]) -> complex:
    """``<psi| prod_j O_j |psi>`` for one-site operators ``O_j`` (``d x d``) on distinct
    sites, by transfer matrices from the first site to the last one involved."""
    if not operators:
        return 1.0 + 0.0j
    sites = sorted(operators)
    first, last = sites[0], sites[-1]
    values = net.dense_schmidt(first)
    env = np.diag((values * values).astype(net.dtype))
    for j in range(first, last + 1):
        site = net.dense_site(j)
        ket = site if j not in operators else np.einsum("ts,lsr->ltr", operators[j], site)
        env = np.einsum("ab,asr,bsx->rx", env, site.conj(), ket, optimize=True)
    return complex(np.trace(env))


def marginal(net: Network, sites: Sequence[int]) -> np.ndarray:
    """The joint distribution of ``sites`` (index bit ``i`` is ``sites[i]``'s state, qubits
    only: ``d = 2``), by branching over outcomes from the first site to the last."""
    order = sorted(range(len(sites)), key=lambda i: sites[i])
    ordered = [sites[i] for i in order]
    first, last = ordered[0], ordered[-1]
    values = net.dense_schmidt(first)
    # branches: the outcomes so far (as an index over ``ordered``) and their environments
    envs = np.diag(values * values).astype(net.dtype)[None]
    d = net.d
    for j in range(first, last + 1):
        site = net.dense_site(j)
        if j in ordered:
            grown = np.einsum("nab,asr,bsx->nsrx", envs, site.conj(), site, optimize=True)
            envs = grown.reshape(-1, site.shape[2], site.shape[2])
        else:
            envs = np.einsum("nab,asr,bsx->nrx", envs, site.conj(), site, optimize=True)
    p = np.real(np.einsum("nrr->n", envs))
    # the branch index has ordered[0] as its slowest digit; reorder to sites[i] -> bit i
    p = p.reshape((d,) * len(ordered))
    k = len(sites)
    axes = [order.index(k - 1 - b) for b in range(k)]
    return np.clip(p.transpose(axes).reshape(-1), 0.0, None)


def sample_sites(net: Network, shots: int, last: int, rng: np.random.Generator) -> np.ndarray:
    """``shots`` draws of the local states of sites ``0 .. last`` (a ``shots x (last+1)``
    array): each site is drawn from its probability given the ones drawn before it, all shots
    at once, shots grouped by the charge their outcomes have reached."""
    out = np.zeros((shots, last + 1), dtype=np.int64)
    charges = net.charges
    # every group of shots shares one left charge: (charge, shot indices, row vectors)
    groups = [(q, np.arange(shots), np.ones((shots, 1), dtype=net.dtype)) for q in net.bonds[0]]
    for j in range(last + 1):
        site = net.tensors[j]
        grown: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
        for q, index, vectors in groups:
            candidates = [(s, vectors @ site[(q, s)]) for s in range(net.d) if (q, s) in site]
            weights = np.stack([np.einsum("ij,ij->i", v.conj(), v).real for _, v in candidates])
            total = weights.sum(axis=0)
            cumulative = np.cumsum(weights, axis=0) / total
            u = rng.random(index.size)
            pick = np.minimum(np.sum(cumulative < u, axis=0), len(candidates) - 1)
            for c, (s, v) in enumerate(candidates):
                chosen = pick == c
                if not chosen.any():
                    continue
                out[index[chosen], j] = s
                norms = np.sqrt(weights[c, chosen])[:, None]
                grown.setdefault(q + charges[s], []).append((index[chosen], v[chosen] / norms))
        groups = [
            (q, np.concatenate([i for i, _ in parts]), np.vstack([v for _, v in parts]))
            for q, parts in grown.items()
        ]
    return out


def amplitude(net: Network, local_states: Sequence[int]) -> complex:
    """``<s_0 s_1 ... s_{n-1}|psi>``: one product of blocks (zero where a block is absent)."""
    vector = np.ones((1, 1), dtype=net.dtype)
    q = next(iter(net.bonds[0]))
    for j, s in enumerate(local_states):
        block = net.tensors[j].get((q, int(s)))
        if block is None:
            return 0j
        vector = vector @ block
        q += net.charges[s]
    return complex(vector[0, 0])


def entropies(net: Network, base: float) -> np.ndarray:
    """The von Neumann entropy of every cut ``1 .. n-1`` from its Schmidt values."""
    out = np.zeros(max(net.n_sites - 1, 0))
    for cut in range(1, net.n_sites):
        p = net.dense_schmidt(cut) ** 2
        p = p[p > 0]
        value = float(-np.sum(p * np.log(p)) / np.log(base))
        out[cut - 1] = value if value > 0 else 0.0  # no -0.0 for a product state
    return out
