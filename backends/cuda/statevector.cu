// genqsim CUDA kernels for state vectors of complex<real_t>.
//
// One source for both precisions: the loader prepends `typedef float real_t;` or
// `typedef double real_t;` and compiles one module per dtype (CuPy RawModule without
// name_expressions, so the module hits CuPy's on-disk cache in the next process).
//
// Habits (seeds 001-003): grid-stride loops over a capped grid; every amplitude a thread needs
// is loaded before any is stored; 64-bit indices throughout; gate data travels by value in an
// OpParams struct (no device allocation per gate); a run of gates on the lowest qubits is
// applied to tiles held in shared memory, one global read and write per run.

#ifndef GENQSIM_CUDA_STATEVECTOR
#define GENQSIM_CUDA_STATEVECTOR

typedef long long index_t;

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

// Dynamic shared memory of every kernel that uses it (sized at launch).
extern __shared__ __align__(16) unsigned char shared_bytes[];

#define MAX_DIM 8      // by-value operations act on at most 3 target qubits
#define MAX_FIXED 24   // targets + controls of one operation

// enum OpKind { OP_DENSE, OP_DIAGONAL, OP_PERMUTATION } is prepended by the loader from
// genqsim.plan.calls.CallKind, the one table of call codes (see kernel_source).

// One primitive call, by value. Field order (8-byte fields first) matches the NumPy
// structured dtype built by genqsim.backends.cupy_backend.op_dtype.
struct OpParams {
    index_t control_value;     // control bits (at their positions) that select the subspace
    index_t offsets[MAX_DIM];  // index offset of each target pattern r
    real_t data[2 * MAX_DIM * MAX_DIM];  // dense: row-major matrix; else diagonal / phases
    int fixed[MAX_FIXED];      // sorted positions of targets and controls
    int perm[MAX_DIM];         // permutation: pattern r moves to pattern perm[r]
    int n_fixed;
    int dim;                   // 2**k
    int kind;
    int active;                // bit r set: row r is touched (diagonal / permutation)
};

// i with a zero bit inserted at each sorted position: enumerates one subspace.
__device__ __forceinline__ index_t deposit_zeros(index_t i, const int* fixed, int n_fixed) {
    for (int f = 0; f < n_fixed; ++f) {
        const int p = fixed[f];
        const index_t low = i & ((((index_t)1) << p) - 1);
        i = ((i >> p) << (p + 1)) | low;
    }
    return i;
}

__device__ __forceinline__ cplx op_entry(const OpParams& op, int k) {
    return c_make(op.data[2 * k], op.data[2 * k + 1]);
}

// Apply `op` to the amplitudes amp[base + offsets[r]] (amp may be global or shared memory).
__device__ __forceinline__ void apply_op_at(cplx* amp, index_t base, const OpParams& op) {
    cplx a[MAX_DIM];
    const int dim = op.dim;
#pragma unroll
    for (int r = 0; r < MAX_DIM; ++r)
        if (r < dim) a[r] = amp[base + op.offsets[r]];  // read all before any write
    if (op.kind == OP_DENSE) {
#pragma unroll
        for (int r = 0; r < MAX_DIM; ++r) {
            if (r >= dim) break;
            cplx s = c_make(0, 0);
#pragma unroll
            for (int c = 0; c < MAX_DIM; ++c)
                if (c < dim) s = c_add(s, c_mul(op_entry(op, r * dim + c), a[c]));
            amp[base + op.offsets[r]] = s;
        }
    } else if (op.kind == OP_DIAGONAL) {
#pragma unroll
        for (int r = 0; r < MAX_DIM; ++r)
            if (r < dim && (op.active >> r & 1))
                amp[base + op.offsets[r]] = c_mul(op_entry(op, r), a[r]);
    } else {
#pragma unroll
        for (int r = 0; r < MAX_DIM; ++r)
            if (r < dim && (op.active >> r & 1))
                amp[base + op.offsets[op.perm[r]]] = c_mul(op_entry(op, r), a[r]);
    }
}

// One operation on a batch of states, each of `state_size` amplitudes; `n_iter` subspace
// iterations per state (2**(n - n_fixed)).
extern "C" __global__ void apply_op(cplx* psi, const OpParams op, index_t n_iter,
                                    index_t state_size, index_t batch) {
    const index_t total = n_iter * batch;
    for (index_t t = blockIdx.x * (index_t)blockDim.x + threadIdx.x; t < total;
         t += (index_t)blockDim.x * gridDim.x) {
        const index_t b = t / n_iter;
        const index_t i = t - b * n_iter;
        const index_t base = b * state_size + (deposit_zeros(i, op.fixed, op.n_fixed) | op.control_value);
        apply_op_at(psi, base, op);
    }
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

// Which qubits a tile spans (seed 001's MSB scheme): the lowest few qubits keep the global
// accesses coalesced (series of consecutive amplitudes), the others may be high qubits, so a
// run of gates on high qubits is still applied in shared memory. Field order matches the NumPy
// record genqsim.backends.cupy_backend.tile_dtype builds.
struct TileQubits {
    int q[MAX_TILE_BITS];  // sorted qubit of each tile bit
    int n;                 // tile bits
    int state_bits;        // qubits of one state (the batch stride is 2**state_bits)
    int contiguous;        // q[i] == i for all i: tile t is amplitudes [t * 2**n, (t+1) * 2**n)
};

// The global offset (within its tile's base) of tile element j: bit i of j goes to q[i].
__device__ __forceinline__ index_t tile_offset(index_t j, const TileQubits& tq) {
    if (tq.contiguous) return j;
    index_t out = 0;
    for (int i = 0; i < tq.n; ++i) out |= ((j >> i) & 1) << tq.q[i];
    return out;
}

// Run `body(tile, tile_size)` on every tile of `v` (a batch of states): the whole block loads
// the tile into shared memory, `body` works on it, the block stores it back once.
template <typename Body>
__device__ __forceinline__ void for_each_tile(cplx* v, const TileQubits& tq, index_t n_tiles,
                                              Body body) {
    cplx* tile = reinterpret_cast<cplx*>(shared_bytes);
    const index_t tile_size = ((index_t)1) << tq.n;
    const int free_bits = tq.state_bits - tq.n;
    for (index_t t = blockIdx.x; t < n_tiles; t += gridDim.x) {
        const index_t sample = t >> free_bits;
        const index_t within = t & ((((index_t)1) << free_bits) - 1);
        cplx* base = v + (sample << tq.state_bits) + deposit_zeros(within, tq.q, tq.n);
        for (index_t j = threadIdx.x; j < tile_size; j += blockDim.x) tile[j] = base[tile_offset(j, tq)];
        __syncthreads();
        body(tile, tile_size);
        for (index_t j = threadIdx.x; j < tile_size; j += blockDim.x) base[tile_offset(j, tq)] = tile[j];
        __syncthreads();
    }
}

// A run of operations, all on the tile's qubits (numbered by tile bit), applied tile by tile
// in shared memory: every operation with __syncthreads() between them, one global read and
// write of the state for the whole run.
extern "C" __global__ void apply_tile_run(cplx* psi, const OpParams* ops, int n_ops,
                                          const TileQubits tq, index_t n_tiles) {
    for_each_tile(psi, tq, n_tiles, [&](cplx* tile, index_t tile_size) {
        for (int o = 0; o < n_ops; ++o) {
            const OpParams& op = ops[o];
            const index_t n_iter = tile_size >> op.n_fixed;
            for (index_t i = threadIdx.x; i < n_iter; i += blockDim.x)
                apply_op_at(tile, deposit_zeros(i, op.fixed, op.n_fixed) | op.control_value, op);
            __syncthreads();
        }
    });
}

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
