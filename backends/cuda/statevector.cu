// genqsim CUDA kernels for state vectors of complex<real_t>, and for real states.
//
// One source for every element type: the loader prepends `typedef float real_t;` or
// `typedef double real_t;` and compiles one module per dtype (CuPy RawModule without
// name_expressions, so the module hits CuPy's on-disk cache in the next process). For real
// states (a density matrix's Pauli coordinates, every operation a real matrix) it also
// defines REAL_AMPLITUDES: an amplitude is then one real number, operations keep their
// complex layout and only the real parts of their numbers are read.
//
// Habits (seeds 001-003): grid-stride loops over a capped grid; every amplitude a thread needs
// is loaded before any is stored; 64-bit indices throughout; gate data travels by value in an
// OpParams struct (no device allocation per gate); a run of gates on the lowest qubits is
// applied to tiles held in shared memory, one global read and write per run.

#ifndef GENQSIM_CUDA_STATEVECTOR
#define GENQSIM_CUDA_STATEVECTOR

typedef long long index_t;

#ifdef REAL_AMPLITUDES
struct cplx {
    real_t re;
};

__device__ __forceinline__ cplx c_make(real_t re, real_t) {
    cplx z;
    z.re = re;
    return z;
}
__device__ __forceinline__ cplx c_add(cplx a, cplx b) { return c_make(a.re + b.re, 0); }
__device__ __forceinline__ cplx c_mul(cplx a, cplx b) { return c_make(a.re * b.re, 0); }
#else
// Aligned to its full size so a load or store of one amplitude is a single vector access.
struct __align__(2 * sizeof(real_t)) cplx {
    real_t re, im;
};

__device__ __forceinline__ cplx c_make(real_t re, real_t im) {
    cplx z;
    z.re = re;
    z.im = im;
    return z;
}
__device__ __forceinline__ cplx c_add(cplx a, cplx b) { return c_make(a.re + b.re, a.im + b.im); }
__device__ __forceinline__ cplx c_mul(cplx a, cplx b) {
    return c_make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
__device__ __forceinline__ cplx c_conj(cplx a) { return c_make(a.re, -a.im); }
#endif

// Two neighbouring amplitudes (index bit 0 clear, then set) as one aligned value, so a thread
// of apply_op_pairs moves both in one access (16 bytes in complex64); the arithmetic of
// load_rows and store_rows on it is the one of each amplitude.
struct __align__(2 * sizeof(cplx)) cplx_pair {
    cplx lo, hi;
};

__device__ __forceinline__ cplx_pair c_add(cplx_pair a, cplx_pair b) {
    return {c_add(a.lo, b.lo), c_add(a.hi, b.hi)};
}
__device__ __forceinline__ cplx_pair c_mul(cplx a, cplx_pair b) {
    return {c_mul(a, b.lo), c_mul(a, b.hi)};
}
template <typename V>
__device__ __forceinline__ V c_zero();
template <>
__device__ __forceinline__ cplx c_zero<cplx>() { return c_make(0, 0); }
template <>
__device__ __forceinline__ cplx_pair c_zero<cplx_pair>() { return {c_make(0, 0), c_make(0, 0)}; }

// The amplitude (V = cplx) or neighbouring pair (V = cplx_pair, i even) at amp[i].
template <typename V, typename Index>
__device__ __forceinline__ V& amp_at(cplx* amp, Index i) {
    return *reinterpret_cast<V*>(amp + i);
}
template <typename V, typename Index>
__device__ __forceinline__ const V& amp_at(const cplx* amp, Index i) {
    return *reinterpret_cast<const V*>(amp + i);
}

// Dynamic shared memory of every kernel that uses it (sized at launch).
extern __shared__ __align__(16) unsigned char shared_bytes[];

#define MAX_DIM 8      // by-value dense operations act on at most 3 target qubits
#define MAX_ROWS 16    // by-value diagonals and permutations on at most 4 (a density matrix's
                       // two-qubit channels in Pauli coordinates are signed permutations)
#define MAX_FIXED 24   // targets + controls of one operation

// enum OpKind { OP_DENSE, OP_DIAGONAL, OP_PERMUTATION } is prepended by the loader from
// genqsim.plan.calls.CallKind, the one table of call codes (see kernel_source).

// One primitive call, by value. Field order (8-byte fields first) matches the NumPy
// structured dtype built by genqsim.backends.cupy_backend.op_dtype.
struct OpParams {
    index_t control_value;     // control bits (at their positions) that select the subspace
    index_t offsets[MAX_ROWS];  // index offset of each target pattern r
    real_t data[2 * MAX_DIM * MAX_DIM];  // dense: row-major matrix; else diagonal / phases
    int fixed[MAX_FIXED];      // sorted positions of targets and controls
    int perm[MAX_ROWS];        // permutation: pattern r moves to pattern perm[r]
    int n_fixed;
    int dim;                   // 2**k
    int kind;
    int active;                // bit r set: row r is touched (diagonal / permutation)
};

// i with a zero bit inserted at each sorted position: enumerates one subspace.
template <typename Index>
__device__ __forceinline__ Index deposit_zeros(Index i, const int* fixed, int n_fixed) {
    for (int f = 0; f < n_fixed; ++f) {
        const int p = fixed[f];
        const Index low = i & ((((Index)1) << p) - 1);
        i = ((i >> p) << (p + 1)) | low;
    }
    return i;
}

__device__ __forceinline__ cplx op_entry(const OpParams& op, int k) {
    return c_make(op.data[2 * k], op.data[2 * k + 1]);
}

// What one thread needs of an operation of D rows, read once per operation (not per
// amplitude: re-reading the fields from memory for every amplitude cost more instructions and
// stalls than the arithmetic): its kind, active rows, and each row's offset and, for a
// permutation, the offset its amplitude moves to. Index is the type of indices and offsets:
// 32 bits inside a shared-memory tile (half the registers), 64 bits over a whole state.
template <int D, typename Index>
struct OpRows {
    int kind;
    int active;     // bit r set: row r is touched (diagonal / permutation)
    Index at[D];    // offset of row r
    Index to[D];    // permutation: offset of row perm[r]
};

template <int D, typename Index>
__device__ __forceinline__ OpRows<D, Index> op_rows(const OpParams& op) {
    OpRows<D, Index> rows;
    rows.kind = op.kind;
    rows.active = op.active;
#pragma unroll
    for (int r = 0; r < D; ++r) {
        rows.at[r] = (Index)op.offsets[r];
        rows.to[r] = op.kind == OP_PERMUTATION ? (Index)op.offsets[op.perm[r]] : rows.at[r];
    }
    return rows;
}

// The two halves of an operation on the amplitudes amp[base + at[r]]: load_rows reads the
// rows it needs into a[] (a dense matrix every row, a diagonal or permutation its active
// ones), store_rows writes what the operation makes of them (a permutation moves row r to
// to[r] times its phase; a diagonal's to[r] is at[r]). Split so a thread can load the rows
// of several subspaces before it stores any (apply_op_series).
// V is what a thread moves per row: one amplitude (cplx), or two neighbours (cplx_pair).
template <int D, typename Index, typename V = cplx>
__device__ __forceinline__ void load_rows(const cplx* amp, Index base, const OpRows<D, Index>& op,
                                          V* a) {
#pragma unroll
    for (int r = 0; r < D; ++r)
        if (op.kind == OP_DENSE || (op.active >> r & 1)) a[r] = amp_at<V>(amp, base + op.at[r]);
}

template <int D, typename Index, typename Entry, typename V = cplx>
__device__ __forceinline__ void store_rows(cplx* amp, Index base, const OpRows<D, Index>& op,
                                           const V* a, Entry entry) {
    if (D <= MAX_DIM && op.kind == OP_DENSE) {  // never dense above MAX_DIM rows
#pragma unroll
        for (int r = 0; r < D; ++r) {
            V s = c_zero<V>();
#pragma unroll
            for (int c = 0; c < D; ++c) s = c_add(s, c_mul(entry(r * D + c), a[c]));
            amp_at<V>(amp, base + op.at[r]) = s;
        }
        return;
    }
#pragma unroll
    for (int r = 0; r < D; ++r)
        if (op.active >> r & 1) amp_at<V>(amp, base + op.to[r]) = c_mul(entry(r), a[r]);
}

// Apply an operation of D = 2**k rows (op.dim == D) to the amplitudes amp[base + at[r]] (amp
// may be global or shared memory). D is a template parameter so every loop is unrolled to
// exactly the rows the operation has, with no predicated-off work; a diagonal or permutation
// loads and stores only its active rows (a CZ reads a quarter of the state). A dense matrix or
// a permutation loads every row before it stores any; a diagonal changes each row on its own,
// so it holds one amplitude at a time, not D (fewer registers: no spills at D = 8 in complex128
// under the register cap). `entry(k)` gives the operation's k-th number: matrix entry r*D+c,
// or the diagonal / phase of row r (from shared memory inside tiles). HELD is the most rows a
// dense or permutation operation may have here: D = 8 of them hold 8 amplitudes at once, which
// spills under the register cap in complex128, so a tile run without any is compiled with
// HELD = 4 (the host picks the kernel, see tile_kernel_name).
template <int D, int HELD = MAX_ROWS, typename Index, typename Entry>
__device__ __forceinline__ void apply_op_rows(cplx* amp, Index base, const OpRows<D, Index>& op,
                                              Entry entry) {
    if (op.kind == OP_DIAGONAL) {
#pragma unroll
        for (int r = 0; r < D; ++r)
            if (op.active >> r & 1) amp[base + op.at[r]] = c_mul(entry(r), amp[base + op.at[r]]);
        return;
    }
    if (D > HELD) return;  // never reached: the host ran this run on the kernel with HELD = D
    cplx a[D];
    load_rows<D>(amp, base, op, a);
    store_rows<D>(amp, base, op, a, entry);
}

// CALL(D) for the operation's row count D = dim (the same for every thread, so the switch
// never diverges). Diagonals and permutations of 16 rows run in kernels compiled with that
// case (apply_op_rows16; in tiles, apply_tile_run_wide, and apply_tile_run_narrow for
// diagonals), so apply_op and apply_tile_run keep their registers.
#define DISPATCH_DIM(dim, CALL) \
    switch (dim) {              \
        case 1: CALL(1); break; \
        case 2: CALL(2); break; \
        case 4: CALL(4); break; \
        default: CALL(8); break; \
    }
#define DISPATCH_ROWS(dim, CALL)                  \
    if (dim == MAX_ROWS) {                        \
        CALL(MAX_ROWS);                           \
    } else {                                      \
        DISPATCH_DIM(dim, CALL)                   \
    }

// Where iteration t of an operation over a batch starts: in state t >> iter_bits, the
// subspace numbered by t's low iter_bits bits (zero bits inserted at the sorted targets and
// controls, the controls' selecting bits set).
__device__ __forceinline__ index_t subspace_base(index_t t, index_t n_iter, int iter_bits,
                                                 index_t state_size, const OpParams& op) {
    return (t >> iter_bits) * state_size +
           (deposit_zeros(t & (n_iter - 1), op.fixed, op.n_fixed) | op.control_value);
}

// One operation over a batch of states, each of `state_size` amplitudes; `n_iter` (a power
// of two, 2**(n - n_fixed)) subspace iterations per state.
template <int D>
__device__ __forceinline__ void apply_op_grid(cplx* psi, const OpParams& op, index_t n_iter,
                                              index_t state_size, index_t batch) {
    const index_t total = n_iter * batch;
    const int iter_bits = __ffsll(n_iter) - 1;
    const OpRows<D, index_t> rows = op_rows<D, index_t>(op);
    for (index_t t = blockIdx.x * (index_t)blockDim.x + threadIdx.x; t < total;
         t += (index_t)blockDim.x * gridDim.x) {
        const index_t base = subspace_base(t, n_iter, iter_bits, state_size, op);
        apply_op_rows<D>(psi, base, rows, [&](int k) { return op_entry(op, k); });
    }
}

// At most 64 registers a thread (four blocks of BLOCK_THREADS an SM): enough warps in flight
// to keep the memory busy, where the widest dense case would otherwise take 96-166.
#define OCCUPANCY __launch_bounds__(BLOCK_THREADS, 4)

extern "C" __global__ void OCCUPANCY apply_op(cplx* psi, const OpParams op, index_t n_iter,
                                    index_t state_size, index_t batch) {
#define APPLY_OP_GRID(D) apply_op_grid<D>(psi, op, n_iter, state_size, batch)
    DISPATCH_DIM(op.dim, APPLY_OP_GRID)
#undef APPLY_OP_GRID
}

// One operation of D rows over a batch, each warp taking NARROW_SERIES series of 32
// consecutive subspace iterations at a time (lane l the l-th of each): a thread loads the
// rows of all its NARROW_SERIES subspaces before it stores any, so more bytes are in flight
// a thread, and a warp reads and writes runs of 32 * NARROW_SERIES amplitudes in a row on
// each side of a high target (fewer DRAM row switches than one series at a time). The host
// sizes the grid for NARROW_SERIES iterations a thread (launch_of).
template <int D>
__device__ __forceinline__ void apply_op_series(cplx* psi, const OpParams& op, index_t n_iter,
                                                index_t state_size, index_t batch) {
    const index_t total = n_iter * batch;
    const int iter_bits = __ffsll(n_iter) - 1;
    const OpRows<D, index_t> rows = op_rows<D, index_t>(op);
    const auto entry = [&](int k) { return op_entry(op, k); };
    const index_t thread = blockIdx.x * (index_t)blockDim.x + threadIdx.x;
    const index_t first = (thread >> 5) * (32 * NARROW_SERIES) + (thread & 31);
    const index_t stride = (index_t)blockDim.x * gridDim.x * NARROW_SERIES;
    for (index_t t0 = first; t0 < total; t0 += stride) {
        index_t base[NARROW_SERIES];
        cplx a[NARROW_SERIES][D];
#pragma unroll
        for (int k = 0; k < NARROW_SERIES; ++k) {
            const index_t t = t0 + 32 * k;
            if (t < total) {
                base[k] = subspace_base(t, n_iter, iter_bits, state_size, op);
                load_rows<D>(psi, base[k], rows, a[k]);
            }
        }
#pragma unroll
        for (int k = 0; k < NARROW_SERIES; ++k)
            if (t0 + 32 * k < total) store_rows<D>(psi, base[k], rows, a[k], entry);
    }
}

// A kernel NAME for operations on at most one target (op.dim 2, or 1: a phase on controls) that
// GRID<D> runs. Compiled without the wider cases it needs few enough registers that 8
// blocks of BLOCK_THREADS fit an SM in single precision and 6 in double, not apply_op's 4:
// those extra warps keep more bytes in flight too.
#define ONE_TARGET_KERNEL(NAME, GRID)                                                         \
    extern "C" __global__ void __launch_bounds__(BLOCK_THREADS, sizeof(real_t) == 4 ? 8 : 6) \
        NAME(cplx* psi, const OpParams op, index_t n_iter, index_t state_size,              \
             index_t batch) {                                                                \
        if (op.dim == 1)                                                                     \
            GRID<1>(psi, op, n_iter, state_size, batch);                                     \
        else                                                                                 \
            GRID<2>(psi, op, n_iter, state_size, batch);                                     \
    }

// An operation on one target (every one-qubit gate, with or without controls), in series
// (apply_op_series).
ONE_TARGET_KERNEL(apply_op_narrow, apply_op_series)

// An operation on one target whose subspaces pair up side by side: index bit 0 is neither a
// target nor a control (op.fixed[0] > 0), so iterations 2u and 2u + 1 start at neighbouring
// amplitudes, and a thread takes both, moving each row's two in one access (cplx_pair: 16
// bytes in complex64, where apply_op_narrow moves 8 a load). A candidate to apply_op_narrow,
// timed beside it by `benchmarks/gpu_bench.py --launches` ("pairs"); the backend does not
// launch it unless PAIRED_ONE_TARGET is set (cupy_backend.py).
template <int D>
__device__ __forceinline__ void apply_op_pairs_grid(cplx* psi, const OpParams& op, index_t n_iter,
                                                    index_t state_size, index_t batch) {
    const index_t pairs = (n_iter * batch) >> 1;  // n_iter is even: bit 0 is free
    const int iter_bits = __ffsll(n_iter) - 1;
    const OpRows<D, index_t> rows = op_rows<D, index_t>(op);
    const auto entry = [&](int k) { return op_entry(op, k); };
    for (index_t u = blockIdx.x * (index_t)blockDim.x + threadIdx.x; u < pairs;
         u += (index_t)blockDim.x * gridDim.x) {
        const index_t base = subspace_base(u << 1, n_iter, iter_bits, state_size, op);
        cplx_pair a[D];
        load_rows<D>(psi, base, rows, a);
        store_rows<D>(psi, base, rows, a, entry);
    }
}

ONE_TARGET_KERNEL(apply_op_pairs, apply_op_pairs_grid)

// A diagonal or permutation of 16 rows.
extern "C" __global__ void OCCUPANCY apply_op_rows16(cplx* psi, const OpParams op, index_t n_iter,
                                                     index_t state_size, index_t batch) {
    apply_op_grid<MAX_ROWS>(psi, op, n_iter, state_size, batch);
}

// A dense k-qubit matrix (any k) from device memory, for operations too wide to pass by value.
// Each thread gathers its 2**k amplitudes into `scratch` (dim entries per thread) first.
extern "C" __global__ void apply_dense_wide(cplx* psi, const cplx* matrix, const index_t* offsets,
                                            const int* fixed, int n_fixed, index_t control_value,
                                            int dim, cplx* scratch, index_t n_iter,
                                            index_t state_size, index_t batch) {
    const index_t total = n_iter * batch;
    const index_t stride = (index_t)blockDim.x * gridDim.x;
    const index_t tid = blockIdx.x * (index_t)blockDim.x + threadIdx.x;
    cplx* mine = scratch + tid * dim;
    for (index_t t = tid; t < total; t += stride) {
        const index_t b = t / n_iter;
        const index_t i = t - b * n_iter;
        const index_t base = b * state_size + (deposit_zeros(i, fixed, n_fixed) | control_value);
        for (int r = 0; r < dim; ++r) mine[r] = psi[base + offsets[r]];
        for (int r = 0; r < dim; ++r) {
            cplx s = c_make(0, 0);
            for (int c = 0; c < dim; ++c) s = c_add(s, c_mul(matrix[(index_t)r * dim + c], mine[c]));
            psi[base + offsets[r]] = s;
        }
    }
}

#define MAX_TILE_BITS 16

// Which qubits a tile spans (the most-significant-bit scheme of Gutierrez et al.'s CUDA quantum-
// computer simulator): the lowest few qubits keep the global accesses coalesced (series of
// consecutive amplitudes), the others may be high qubits, so a run of gates on high qubits is still
// applied in shared memory. Field order matches the NumPy record
// genqsim.backends.cupy_backend.tile_dtype builds.
struct TileQubits {
    int q[MAX_TILE_BITS];  // sorted qubit of each tile bit
    int n;                 // tile bits
    int state_bits;        // qubits of one state (the batch stride is 2**state_bits)
};

// SPREAD_BITS (tile bits per look-up table) is prepended by the loader, from
// genqsim.backends.cupy_backend.SPREAD_BITS, which the host's tile check uses too.

// Where a tile's elements lie, built once per block: element j of a tile is at
//   base + (j & low_mask) + a[(j >> low) % 2**SPREAD_BITS] + b[j >> (low + SPREAD_BITS)],
// where the lowest `low` tile bits are qubits 0..low-1 (one series of consecutive amplitudes)
// and the two tables place the remaining bits (at most 2 * SPREAD_BITS) at their qubits: a
// table look-up per element instead of a loop over the tile's bits.
struct TileSpread {
    int low;
    int low_mask;
    index_t a[1 << SPREAD_BITS];
    index_t b[1 << SPREAD_BITS];
};

__device__ __forceinline__ void build_spread(TileSpread& sp, const TileQubits& tq) {
    int low = 0;
    while (low < tq.n && tq.q[low] == low) ++low;
    for (int h = threadIdx.x; h < 2 << SPREAD_BITS; h += blockDim.x) {
        const int part = h >> SPREAD_BITS, bits = h & ((1 << SPREAD_BITS) - 1);
        index_t offset = 0;
        for (int i = 0; i < SPREAD_BITS; ++i) {
            const int tile_bit = low + part * SPREAD_BITS + i;
            if (bits >> i & 1 && tile_bit < tq.n) offset |= ((index_t)1) << tq.q[tile_bit];
        }
        (part ? sp.b : sp.a)[bits] = offset;
    }
    if (threadIdx.x == 0) {
        sp.low = low;
        sp.low_mask = (1 << low) - 1;
    }
    __syncthreads();
}

__device__ __forceinline__ index_t spread_offset(int j, const TileSpread& sp) {
    const int high = j >> sp.low;
    return (j & sp.low_mask) + sp.a[high & ((1 << SPREAD_BITS) - 1)] + sp.b[high >> SPREAD_BITS];
}

// MAX_GROUP_BITS (at most 2**3 tiles a group) is prepended by the loader.

// Run `body(tiles, size)` on every tile of `v` (a batch of states), 2**group_bits tiles at a
// time: the whole block loads a group of consecutive tiles into shared memory, one after the
// other, `body` works on them as one buffer of `size` amplitudes, and the block stores them
// back once. Tile k of a group sits at bits tq.n and up of the buffer index, which no
// operation of the run touches, so `body` sees one larger tile; each operation's set-up is
// paid once per group instead of once per tile. A tile has at most 2 * SPREAD_BITS bits above
// its lowest series (the host checks, see tile_record); 2**group_bits divides n_tiles.
template <typename Body>
__device__ __forceinline__ void for_each_tile(cplx* v, const TileQubits& tq, index_t n_tiles,
                                              int group_bits, Body body) {
    __shared__ TileSpread spread;
    __shared__ cplx* group_base[1 << MAX_GROUP_BITS];
    build_spread(spread, tq);
    cplx* tiles = reinterpret_cast<cplx*>(shared_bytes);
    const int tile_mask = (1 << tq.n) - 1;
    const int size = 1 << (tq.n + group_bits);
    const int free_bits = tq.state_bits - tq.n;
    const index_t n_groups = n_tiles >> group_bits;
    for (index_t g = blockIdx.x; g < n_groups; g += gridDim.x) {
        if (threadIdx.x < (1 << group_bits)) {
            const index_t t = (g << group_bits) + threadIdx.x;
            const index_t sample = t >> free_bits;
            const index_t within = t & ((((index_t)1) << free_bits) - 1);
            group_base[threadIdx.x] =
                v + (sample << tq.state_bits) + deposit_zeros(within, tq.q, tq.n);
        }
        __syncthreads();
        for (int j = threadIdx.x; j < size; j += blockDim.x)
            tiles[j] = group_base[j >> tq.n][spread_offset(j & tile_mask, spread)];
        __syncthreads();
        body(tiles, (index_t)size);
        for (int j = threadIdx.x; j < size; j += blockDim.x)
            group_base[j >> tq.n][spread_offset(j & tile_mask, spread)] = tiles[j];
        __syncthreads();
    }
}

// Copy an operation's numbers into shared memory: a dense matrix's D*D entries, or the D
// entries of a diagonal or of a permutation's phases.
__device__ __forceinline__ void stage_entries(cplx* staged, const OpParams& op) {
    const int count = op.kind == OP_DENSE ? op.dim * op.dim : op.dim;
    for (int k = threadIdx.x; k < count; k += blockDim.x) staged[k] = op_entry(op, k);
}

// Where iteration i of a tile operation starts, for operations with at most MASKED_FIXED
// sorted fixed bits p_0 < p_1 < ...: the sum over k of (i << k) & mask[k], where mask[k] holds
// the tile bits between p_{k-1} and p_k (the bits of i that k fixed bits push up). The masks
// are built once per operation; a loop over the fixed bits per amplitude is left to wider
// controls.
#define MASKED_FIXED 4
struct TileSubspace {
    unsigned mask[MASKED_FIXED + 1];
};

__device__ __forceinline__ TileSubspace tile_subspace(const OpParams& op) {
    TileSubspace s;
    unsigned below = 0;  // the bits up to and including the last fixed bit so far
#pragma unroll
    for (int k = 0; k <= MASKED_FIXED; ++k) {
        if (k < op.n_fixed) {
            const unsigned fixed_bit = 1u << op.fixed[k];
            s.mask[k] = (fixed_bit - 1) & ~below;
            below = (fixed_bit << 1) - 1;
        } else {
            s.mask[k] = k == op.n_fixed ? ~below : 0u;
        }
    }
    return s;
}

__device__ __forceinline__ int deposit_masked(int i, const TileSubspace& s) {
    unsigned out = 0;
#pragma unroll
    for (int k = 0; k <= MASKED_FIXED; ++k) out |= ((unsigned)i << k) & s.mask[k];
    return (int)out;
}

// One operation of a tile run, on a tile of `tile_size` amplitudes in shared memory (its
// qubits numbered by tile bit, so 32-bit indices suffice); its numbers are in `staged`.
template <int D, int HELD>
__device__ __forceinline__ void apply_op_in_tile(cplx* tile, int tile_size, const OpParams& op,
                                                 const cplx* staged) {
    const int n_fixed = op.n_fixed;
    const int n_iter = tile_size >> n_fixed;
    const int control_value = (int)op.control_value;
    const OpRows<D, int> rows = op_rows<D, int>(op);
    const auto entry = [staged](int k) { return staged[k]; };
    if (n_fixed <= MASKED_FIXED) {
        const TileSubspace subspace = tile_subspace(op);
        for (int i = threadIdx.x; i < n_iter; i += blockDim.x)
            apply_op_rows<D, HELD>(tile, deposit_masked(i, subspace) | control_value, rows, entry);
    } else {
        for (int i = threadIdx.x; i < n_iter; i += blockDim.x)
            apply_op_rows<D, HELD>(tile, deposit_zeros(i, op.fixed, n_fixed) | control_value,
                                   rows, entry);
    }
}

// A run of operations, all on the tile's qubits (numbered by tile bit), applied tile by tile
// in shared memory: every operation with __syncthreads() between them, one global read and
// write of the state for the whole run. Each operation's numbers are staged in shared memory,
// two buffers in turn: operation o+1's are copied while operation o runs, so the barrier
// after each operation is the only one. Dense and permutation operations have at most HELD
// rows.
template <int HELD>
__device__ __forceinline__ void tile_run(cplx* psi, const OpParams* ops, int n_ops,
                                         const TileQubits& tq, index_t n_tiles, int group_bits) {
    __shared__ cplx staged[2][MAX_DIM * MAX_DIM];  // >= MAX_ROWS phases
    for_each_tile(psi, tq, n_tiles, group_bits, [&](cplx* tile, index_t tile_size) {
        if (n_ops > 0) stage_entries(staged[0], ops[0]);
        __syncthreads();
        for (int o = 0; o < n_ops; ++o) {
            const OpParams& op = ops[o];
            if (o + 1 < n_ops) stage_entries(staged[(o + 1) & 1], ops[o + 1]);
            const cplx* entries = staged[o & 1];
#define APPLY_IN_TILE(D) apply_op_in_tile<D, HELD>(tile, (int)tile_size, op, entries)
            if (HELD != MAX_DIM) {  // a compile-time choice: apply_tile_run keeps its registers
                DISPATCH_ROWS(op.dim, APPLY_IN_TILE)
            } else {
                DISPATCH_DIM(op.dim, APPLY_IN_TILE)
            }
#undef APPLY_IN_TILE
            __syncthreads();
        }
    });
}

// Any tile run, diagonals and permutations of 16 rows included.
extern "C" __global__ void OCCUPANCY apply_tile_run_wide(cplx* psi, const OpParams* ops,
                                                         int n_ops, const TileQubits tq,
                                                         index_t n_tiles, int group_bits) {
    tile_run<MAX_ROWS>(psi, ops, n_ops, tq, n_tiles, group_bits);
}

// A tile run whose operations have at most 8 rows and hold at most 8 amplitudes.
extern "C" __global__ void OCCUPANCY apply_tile_run(cplx* psi, const OpParams* ops, int n_ops,
                                                    const TileQubits tq, index_t n_tiles,
                                                    int group_bits) {
    tile_run<MAX_DIM>(psi, ops, n_ops, tq, n_tiles, group_bits);
}

// A tile run whose dense and permutation operations have at most 4 rows (diagonals 16):
// no operation holds 8 amplitudes, so nothing spills in complex128.
extern "C" __global__ void OCCUPANCY apply_tile_run_narrow(cplx* psi, const OpParams* ops,
                                                           int n_ops, const TileQubits tq,
                                                           index_t n_tiles, int group_bits) {
    tile_run<4>(psi, ops, n_ops, tq, n_tiles, group_bits);
}

#ifndef REAL_AMPLITUDES  // reductions of complex states
// Partial sums of <bra| X^x Z^z |ket> (without the i**n_y factor) over the indices whose
// control bits (control_mask) hold control_value: block b writes its sum of
// conj(bra[j ^ x]) * (-1)**popcount(j & z) * ket[j] to partial[b]; the host sums the partials
// on the device. An expectation value is bra == ket with no controls; the adjoint sweep
// takes a rotation's gradient term Im <lambda| P |psi> from it. No copy of either state.
extern "C" __global__ void pauli_transition_partial(const cplx* bra, const cplx* ket, index_t size,
                                                    index_t x_mask, index_t z_mask,
                                                    index_t control_mask, index_t control_value,
                                                    cplx* partial) {
    cplx* sums = reinterpret_cast<cplx*>(shared_bytes);
    cplx acc = c_make(0, 0);
    for (index_t j = blockIdx.x * (index_t)blockDim.x + threadIdx.x; j < size;
         j += (index_t)blockDim.x * gridDim.x) {
        if ((j & control_mask) != control_value) continue;
        cplx term = c_mul(c_conj(bra[j ^ x_mask]), ket[j]);
        if (__popcll((unsigned long long)(j & z_mask)) & 1) term = c_make(-term.re, -term.im);
        acc = c_add(acc, term);
    }
    sums[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sums[threadIdx.x] = c_add(sums[threadIdx.x], sums[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

// |psi[j]|**2 into a real array (probabilities of a batch: one launch).
extern "C" __global__ void abs2(const cplx* psi, real_t* out, index_t size) {
    for (index_t j = blockIdx.x * (index_t)blockDim.x + threadIdx.x; j < size;
         j += (index_t)blockDim.x * gridDim.x) {
        const cplx a = psi[j];
        out[j] = a.re * a.re + a.im * a.im;
    }
}

#endif

#endif
