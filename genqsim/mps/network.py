"""The tensors of a charge-blocked matrix-product state and the updates that change them.

The state is kept in right-canonical form with its Schmidt values on every bond:
``psi = B_0 B_1 ... B_{n-1}`` where every ``B_j`` is a right isometry and ``S_j`` (the Schmidt
values of the cut left of site ``j``) is stored beside it. Every bond index is split into
charge sectors (the total charge of the sites to its left), and a site tensor is the set of
its nonzero blocks: ``B_j[(q, s)]`` is the ``D_j(q) x D_{j+1}(q + q(s))`` matrix of local state
``s`` between left charge ``q`` and the right charge the state ``s`` leads to. Without a
conserved charge every state has charge 0 and each bond is one sector: the plain MPS is the
same code with one block per local state.

A gate on ``k`` neighbouring sites (Liu et al., Supercomputing tensor networks for U(1) symmetric
quantum many-body systems, eq. 16) contracts only compatible blocks, mixes the blocks of each total
charge with the gate's block for that charge, and splits the result back by one SVD per charge
sector of each new bond, with one global truncation over all sectors. The left site is recovered as
``C B^dagger`` (the gate applied to the unscaled blocks, projected on the new right isometries), so
no Schmidt value is ever divided by.

Blocks live in one array module, ``xp``: NumPy, or a GPU backend's (Liu et al., Supercomputing
tensor networks for U(1) symmetric quantum many-body systems). The updates use only what both
provide (products, ``zeros``, ``svd``, ``qr``); Schmidt values and charge bookkeeping stay on the
host, and the readouts work on a host copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from types import ModuleType
from typing import Any

import numpy as np

from ..errors import ArgumentValueError
from .charges import ChargeGroups, charge_groups
from .truncation import Truncation, kept_counts

Key = tuple[int, tuple[int, ...]]
"""A block of a multi-site tensor: the left charge, and the local states of its sites."""
Bond = dict[int, int]
"""The charge sectors of a bond: charge -> dimension, in increasing charge."""


@dataclass
class Network:
    """The blocks of a right-canonical MPS with Schmidt values on every bond (see the module
    docs). ``bonds[j]`` and ``schmidt[j]`` describe the cut left of site ``j``; ``bonds[0]``
    and ``bonds[n]`` are the one-sector boundaries."""

    charges: tuple[int, ...]
    tensors: list[dict[tuple[int, int], np.ndarray]]
    bonds: list[Bond]
    schmidt: list[dict[int, np.ndarray]]
    dtype: np.dtype = field(default_factory=lambda: np.dtype(np.complex128))
    truncation_error: float = 0.0
    xp: ModuleType = np

    @property
    def n_sites(self) -> int:
        return len(self.tensors)

    @property
    def d(self) -> int:
        return len(self.charges)

    @property
    def total_charge(self) -> int:
        """The charge of the whole state (the right boundary's one sector)."""
        return next(iter(self.bonds[-1]))

    @classmethod
    def product(
        cls,
        local_states: Sequence[int],
        charges: tuple[int, ...],
        dtype: np.dtype,
        xp: ModuleType = np,
    ) -> Network:
        """The product state with site ``j`` in basis state ``local_states[j]``."""
        tensors, bonds, schmidt = [], [{0: 1}], [{0: np.ones(1)}]
        q = 0
        for s in local_states:
            tensors.append({(q, int(s)): xp.ones((1, 1), dtype=dtype)})
            q += charges[s]
            bonds.append({q: 1})
            schmidt.append({q: np.ones(1)})
        return cls(charges, tensors, bonds, schmidt, np.dtype(dtype), xp=xp)

    def moved_to(self, xp: ModuleType) -> Network:
        """A copy whose blocks live in array module ``xp`` (NumPy for the host)."""
        convert = to_host if xp is np else xp.asarray
        out = self.copy()
        out.tensors = [{k: convert(b) for k, b in site.items()} for site in self.tensors]
        out.xp = xp
        return out

    @classmethod
    def from_dense(
        cls, vector: np.ndarray, n_sites: int, charges: tuple[int, ...], truncation: Truncation
    ) -> Network:
        """The MPS of a dense vector (index ``sum_j s_j d**j``: site 0 the fastest digit),
        split site by site from the right. With a conserved charge the vector must lie in one
        charge sector."""
        d = len(charges)
        tensor = np.asarray(vector).reshape((d,) * n_sites).transpose(range(n_sites - 1, -1, -1))
        group = charge_groups(charges, n_sites)
        nonzero = np.flatnonzero(tensor.reshape(-1))
        totals = {group.charge[group.states[i]] for i in nonzero}
        if len(totals) != 1:
            raise ArgumentValueError(
                "the initial state mixes charge sectors "
                f"({', '.join(map(str, sorted(totals)))}): a charge-conserving MPS holds one; "
                "use conserve=None"
                if totals
                else "the initial state is zero"
            )
        (total,) = totals
        flat = tensor.reshape(-1)
        theta = {(0, group.states[i]): flat[i].reshape(1, 1) for i in nonzero}
        net = cls(
            charges, [{} for _ in range(n_sites)], [{0: 1}] + [{}] * n_sites, [], tensor.dtype
        )
        net.bonds[n_sites] = {total: 1}
        net.schmidt = [{0: np.ones(1)}] + [{} for _ in range(n_sites - 1)] + [{total: np.ones(1)}]
        net._split_into(0, theta, dict(theta), truncation)
        return net

    def copy(self) -> Network:
        return Network(
            self.charges,
            [{k: b.copy() for k, b in t.items()} for t in self.tensors],
            [dict(b) for b in self.bonds],
            [{q: s.copy() for q, s in sv.items()} for sv in self.schmidt],
            self.dtype,
            self.truncation_error,
            self.xp,
        )

    # ----------------------------------------------------------------- gates

    def contract(self, first: int, k: int) -> dict[Key, np.ndarray]:
        """``B_first ... B_{first+k-1}`` as blocks keyed by (left charge, local states)."""
        charges = self.charges
        blocks: dict[Key, np.ndarray] = {(q, (s,)): b for (q, s), b in self.tensors[first].items()}
        for j in range(first + 1, first + k):
            site = self.tensors[j]
            grown: dict[Key, np.ndarray] = {}
            for (q, states), block in blocks.items():
                inner = q + sum(charges[s] for s in states)
                for s in range(self.d):
                    nxt = site.get((inner, s))
                    if nxt is not None:
                        grown[(q, (*states, s))] = block @ nxt
            blocks = grown
        return blocks

    def apply(
        self, first: int, k: int, gate: dict[int, np.ndarray], truncation: Truncation
    ) -> float:
        """Apply a gate on sites ``first .. first+k-1`` given by its charge blocks (see
        :func:`~genqsim.mps.charges.gate_blocks`) and renormalise; returns the squared norm
        the gate left before that (1 for a unitary gate). Unitary gates keep the canonical
        form; other operators need :meth:`canonicalize` after."""
        group = charge_groups(self.charges, k)
        mixed = self._mix(self.contract(first, k), first, k, gate, group)
        xp = self.xp
        real = self.dtype.type(0).real.dtype  # Schmidt values in the blocks' precision
        left = {q: xp.asarray(v.astype(real, copy=False)) for q, v in self.schmidt[first].items()}
        if k == 1:
            self.tensors[first] = {(q, states[0]): b for (q, states), b in mixed.items()}
            return sum(_weight(left[q], b, xp) for (q, _), b in self.tensors[first].items())
        scaled = {key: left[key[0]][:, None] * b for key, b in mixed.items()}
        return self._split_into(first, scaled, mixed, truncation)

    def apply_on(
        self, sites: Sequence[int], gate: dict[int, np.ndarray], truncation: Truncation
    ) -> float:
        """:meth:`apply` on any increasing ``sites``: sites that are not neighbours are
        brought next to the first by SWAP updates, and put back after. Returns the squared
        norm the gate left."""
        first, k = sites[0], len(sites)
        swap = swap_blocks(self.charges, self.dtype)
        moves: list[int] = []
        for i, site in enumerate(sites[1:], 1):
            for position in range(site - 1, first + i - 1, -1):
                moves.append(position)
                self.apply(position, 2, swap, truncation)
        norm2 = self.apply(first, k, gate, truncation)
        for position in reversed(moves):
            self.apply(position, 2, swap, truncation)
        return norm2

    def relabel(self, site: int, old: int, new: int) -> None:
        """Turn local state ``old`` of ``site`` into ``new`` where the site is certainly in
        ``old`` (after a projection): the charges of every bond to its right move with it."""
        shift = self.charges[new] - self.charges[old]
        self.tensors[site] = {(q, new): b for (q, s), b in self.tensors[site].items() if s == old}
        for j in range(site + 1, self.n_sites + 1):
            self.bonds[j] = {q + shift: dim for q, dim in self.bonds[j].items()}
            self.schmidt[j] = {q + shift: v for q, v in self.schmidt[j].items()}
            if j < self.n_sites:
                self.tensors[j] = {(q + shift, s): b for (q, s), b in self.tensors[j].items()}

    def _mix(
        self,
        blocks: dict[Key, np.ndarray],
        first: int,
        k: int,
        gate: dict[int, np.ndarray],
        group: ChargeGroups,
    ) -> dict[Key, np.ndarray]:
        """The gate applied to contracted blocks: per left charge and total charge, the
        stack of blocks times the gate's block for that charge."""
        right = self.bonds[first + k]
        xp = self.xp
        matrices = {m: xp.asarray(g) for m, g in gate.items()}
        out: dict[Key, np.ndarray] = {}
        for q, dl in self.bonds[first].items():
            for m, index in group.groups.items():
                dr = right.get(q + m)
                if dr is None:
                    continue
                states = [group.states[i] for i in index]
                present = [blocks.get((q, t)) for t in states]
                if all(b is None for b in present):
                    continue
                stack = xp.zeros((len(states), dl * dr), dtype=self.dtype)
                for row, b in enumerate(present):
                    if b is not None:
                        stack[row] = b.reshape(-1)
                result = matrices[m] @ stack
                for row, t in enumerate(states):
                    out[(q, t)] = result[row].reshape(dl, dr)
        return out

    def _split_into(
        self,
        first: int,
        scaled: dict[Key, np.ndarray],
        unscaled: dict[Key, np.ndarray],
        truncation: Truncation,
    ) -> float:
        """Split a ``k``-site block tensor into sites ``first ..``, right to left: one SVD
        per charge sector of each new bond; the leftmost site is the unscaled tensor projected
        on the new right isometries."""
        k = len(next(iter(scaled))[1])
        right = self.bonds[first + k]
        norm2 = 0.0
        for step in range(k - 1, 0, -1):
            site = first + step
            scaled, unscaled, bond, values, blocks, discarded, norm2 = split_last(
                scaled, unscaled, right, self.charges, truncation, step > 1, self.xp
            )
            self.tensors[site] = blocks
            self.bonds[site] = bond
            self.schmidt[site] = values
            self.truncation_error += discarded
            right = bond
        # the last split's kept weight is the squared norm of S_first * head: S C R^+ = U S
        head = {(q, states[0]): b for (q, states), b in unscaled.items()}
        scale = 1.0 / np.sqrt(norm2)
        self.tensors[first] = {key: b * scale for key, b in head.items()}
        return norm2

    # ---------------------------------------------------------- canonical form

    def canonicalize(self, truncation: Truncation) -> None:
        """Bring the blocks back to right-canonical form with exact Schmidt values and norm 1
        (after a projection or another operation that is not unitary): a QR sweep left to
        right, then an SVD sweep right to left that truncates with ``truncation``."""
        charges, n, xp = self.charges, self.n_sites, self.xp
        carry: dict[int, np.ndarray] = {q: xp.eye(1, dtype=self.dtype) for q in self.bonds[0]}
        for j in range(n):
            rows: dict[int, list[tuple[tuple[int, int], np.ndarray]]] = {}
            for (q, s), b in self.tensors[j].items():
                r = carry.get(q)
                if r is not None:
                    rows.setdefault(q + charges[s], []).append(((q, s), r @ b))
            site, bond, carry = {}, {}, {}
            for qr in sorted(rows):
                entries = rows[qr]
                stacked = xp.vstack([m for _, m in entries])
                qmat, rmat = xp.linalg.qr(stacked)
                offset = 0
                for key, m in entries:
                    site[key] = qmat[offset : offset + m.shape[0]]
                    offset += m.shape[0]
                bond[qr] = qmat.shape[1]
                carry[qr] = rmat
            self.tensors[j] = site
            self.bonds[j + 1] = bond
        total = sum(float(xp.linalg.norm(r)) ** 2 for r in carry.values())
        if total == 0.0:
            raise ArgumentValueError("the state has norm zero (a projection removed it all)")
        (last,) = carry.values()  # the right boundary has one sector: a 1 x 1 matrix
        corner = complex(last[0, 0])
        phase = corner / abs(corner)
        self.tensors[n - 1] = {key: b * phase for key, b in self.tensors[n - 1].items()}
        self.schmidt[n] = {q: np.ones(1) for q in self.bonds[n]}
        self._right_sweep(truncation)

    def _right_sweep(self, truncation: Truncation) -> None:
        """Right-to-left SVDs turning left-canonical blocks (norm 1) into right-canonical ones
        with their Schmidt values."""
        charges, xp = self.charges, self.xp
        carry: dict[int, np.ndarray] = {q: xp.eye(1, dtype=self.dtype) for q in self.bonds[-1]}
        for j in range(self.n_sites - 1, -1, -1):
            cols: dict[int, list[tuple[int, np.ndarray]]] = {}
            for (q, s), b in self.tensors[j].items():
                lmat = carry.get(q + charges[s])
                if lmat is not None:
                    cols.setdefault(q, []).append((s, b @ lmat))
            sectors = sorted(cols)
            decomposed = [svd(xp.hstack([m for _, m in cols[q]]), xp) for q in sectors]
            spectra = [to_host(sv) for _, sv, _ in decomposed]
            if j > 0:
                counts, discarded = kept_counts(spectra, truncation)
                self.truncation_error += discarded
            else:
                counts = [s.size for s in spectra]
            site, bond, values, carry = {}, {}, {}, {}
            norm = np.sqrt(sum(float(np.sum(sv[:c] ** 2)) for sv, c in zip(spectra, counts)))
            for q, (u, sv, vh), c in zip(sectors, decomposed, counts):
                if c == 0:
                    continue
                offset = 0
                for sl, m in cols[q]:
                    site[(q, sl)] = vh[:c, offset : offset + m.shape[1]]
                    offset += m.shape[1]
                bond[q], values[q] = c, to_host(sv[:c]) / norm
                carry[q] = u[:, :c] * (sv[:c] / norm)
            self.tensors[j] = site
            self.bonds[j] = bond
            self.schmidt[j] = values
        (first,) = carry.values()
        corner = complex(first[0, 0])
        phase = corner / abs(corner)
        self.tensors[0] = {key: b * phase for key, b in self.tensors[0].items()}

    # ------------------------------------------------------------ dense views

    def offsets(self, j: int) -> dict[int, int]:
        """Where each charge sector of bond ``j`` starts in its dense index."""
        out, start = {}, 0
        for q, dim in self.bonds[j].items():
            out[q] = start
            start += dim
        return out

    def dense_site(self, j: int) -> np.ndarray:
        """Site ``j`` as one ``(D_left, d, D_right)`` array, sectors in increasing charge."""
        lo, ro = self.offsets(j), self.offsets(j + 1)
        out = np.zeros(
            (sum(self.bonds[j].values()), self.d, sum(self.bonds[j + 1].values())), self.dtype
        )
        for (q, s), b in self.tensors[j].items():
            a, c = lo[q], ro[q + self.charges[s]]
            out[a : a + b.shape[0], s, c : c + b.shape[1]] = to_host(b)
        return out

    def dense_schmidt(self, j: int) -> np.ndarray:
        """The Schmidt values of bond ``j`` in its dense order."""
        return np.concatenate([self.schmidt[j][q] for q in self.bonds[j]])

    def to_dense(self) -> np.ndarray:
        """The state vector (index ``sum_j s_j d**j``); ``d**n`` amplitudes."""
        psi = np.ones((1, 1), dtype=self.dtype)
        for j in range(self.n_sites):
            site = self.dense_site(j)
            psi = np.tensordot(psi, site, axes=(1, 0)).reshape(-1, site.shape[2])
        n = self.n_sites
        return psi.reshape((self.d,) * n).transpose(range(n - 1, -1, -1)).reshape(-1)

    def max_bond(self) -> int:
        return max(sum(b.values()) for b in self.bonds)


@lru_cache(maxsize=16)
def _swap_blocks(charges: tuple[int, ...], dtype: np.dtype) -> dict[int, np.ndarray]:
    d = len(charges)
    swap = np.zeros((d * d, d * d), dtype=dtype)
    for a in range(d):
        for b in range(d):
            swap[b * d + a, a * d + b] = 1
    group = charge_groups(charges, 2)
    return {m: np.ascontiguousarray(swap[np.ix_(ix, ix)]) for m, ix in group.groups.items()}


def swap_blocks(charges: tuple[int, ...], dtype: np.dtype) -> dict[int, np.ndarray]:
    """The charge blocks of the SWAP of two neighbouring sites (it keeps every charge)."""
    return _swap_blocks(charges, np.dtype(dtype))


def _weight(left: Any, block: Any, xp: ModuleType) -> float:
    scaled = left[:, None] * block
    return float(xp.vdot(scaled, scaled).real)


class HostCopy:
    """The host blocks of a network for its readouts: the network itself on the CPU, a copy
    of GPU blocks made once per change (call :meth:`touched` after every change)."""

    def __init__(self) -> None:
        self._version = 0
        self._copy: tuple[int, Network] | None = None

    def touched(self) -> None:
        self._version += 1

    def of(self, net: Network) -> Network:
        if net.xp is np:
            return net
        if self._copy is None or self._copy[0] != self._version:
            self._copy = (self._version, net.moved_to(np))
        return self._copy[1]


def to_host(array: Any) -> np.ndarray:
    """A NumPy array from a host or device array (device arrays offer ``get``)."""
    return array if isinstance(array, np.ndarray) else array.get()


def svd(matrix: Any, xp: ModuleType = np) -> tuple[Any, Any, Any]:
    """A thin SVD in ``matrix``'s array module; on the host, falling back to LAPACK's slower
    but sturdier ``gesvd`` when the default divide-and-conquer driver does not converge."""
    if xp is not np:
        return xp.linalg.svd(matrix, full_matrices=False)
    try:
        return np.linalg.svd(matrix, full_matrices=False)
    except np.linalg.LinAlgError:
        import scipy.linalg  # only for the rare matrix gesdd cannot do

        return scipy.linalg.svd(matrix, full_matrices=False, lapack_driver="gesvd")


def split_last(
    scaled: dict[Key, np.ndarray],
    unscaled: dict[Key, np.ndarray],
    right: Bond,
    charges: tuple[int, ...],
    truncation: Truncation,
    need_scaled: bool = True,
    xp: ModuleType = np,
) -> tuple[
    dict[Key, np.ndarray],
    dict[Key, np.ndarray],
    Bond,
    dict[int, np.ndarray],
    dict[tuple[int, int], np.ndarray],
    float,
    float,
]:
    """Split the last site off a block tensor: group blocks by the charge of the new bond,
    SVD each group of ``scaled`` (the tensor with the left Schmidt values), truncate all
    spectra together, and return the remaining tensor (scaled by the kept values when
    ``need_scaled``; unscaled projected on the kept right vectors), the new bond, its
    normalised Schmidt values, the right site's blocks, the discarded weight and the kept
    weight (the squared norm of the scaled tensor after truncation)."""
    groups: dict[int, dict[tuple[int, tuple[int, ...]], list[tuple[int, Key]]]] = {}
    row_dims: dict[int, dict[Key, int]] = {}
    for key, block in scaled.items():
        q, states = key
        head = states[:-1]
        centre = q + sum(charges[s] for s in head)
        groups.setdefault(centre, {}).setdefault((q, head), []).append((states[-1], key))
        row_dims.setdefault(centre, {})[(q, head)] = block.shape[0]
    sectors = sorted(groups)
    layouts, decomposed, projected = [], [], []
    d = len(charges)
    for centre in sectors:
        rows = sorted(row_dims[centre])
        row_at, r = {}, 0
        for row in rows:
            row_at[row] = r
            r += row_dims[centre][row]
        col_at, c = {}, 0
        for s in range(d):
            dim = right.get(centre + charges[s])
            if dim is not None:
                col_at[s] = (c, dim)
                c += dim
        m_scaled = xp.zeros((r, c), dtype=next(iter(scaled.values())).dtype)
        m_unscaled = xp.zeros_like(m_scaled)
        for row, entries in groups[centre].items():
            r0 = row_at[row]
            for s, key in entries:
                c0, dim = col_at[s]
                block = scaled[key]
                m_scaled[r0 : r0 + block.shape[0], c0 : c0 + dim] = block
                m_unscaled[r0 : r0 + block.shape[0], c0 : c0 + dim] = unscaled[key]
        layouts.append((rows, row_at, col_at))
        decomposed.append(svd(m_scaled, xp))
        projected.append(m_unscaled)
    spectra = [to_host(s) for _, s, _ in decomposed]
    counts, discarded = kept_counts(spectra, truncation)
    kept = sum(float(np.dot(s[:c], s[:c])) for s, c in zip(spectra, counts))
    norm = np.sqrt(kept)
    new_scaled: dict[Key, np.ndarray] = {}
    new_unscaled: dict[Key, np.ndarray] = {}
    bond: Bond = {}
    values: dict[int, np.ndarray] = {}
    site: dict[tuple[int, int], np.ndarray] = {}
    for centre, (rows, row_at, col_at), (u, sv, vh), m_unscaled, c, spectrum in zip(
        sectors, layouts, decomposed, projected, counts, spectra
    ):
        if c == 0:
            continue
        vh = vh[:c]
        bond[centre] = c
        values[centre] = spectrum[:c] / norm
        for sl, (c0, dim) in col_at.items():
            site[(centre, sl)] = vh[:, c0 : c0 + dim]
        head_unscaled = m_unscaled @ vh.conj().T
        head_scaled = u[:, :c] * sv[:c] if need_scaled else None
        for row in rows:
            r0 = row_at[row]
            r1 = r0 + row_dims[centre][row]
            new_unscaled[row] = head_unscaled[r0:r1]
            if head_scaled is not None:
                new_scaled[row] = head_scaled[r0:r1]
    return new_scaled, new_unscaled, bond, values, site, discarded, kept
