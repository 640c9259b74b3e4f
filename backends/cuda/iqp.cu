// IQP feature-map encoding (the Apache Mahout QDP IQP-encoding kernel-fusion design): psi =
// FWT(exp(i theta)) / 2**n with theta(x) = sum_i x_i d_i + sum_{i<j} x_i x_j d_ij, data = n singles
// then the pairs in (0,1), (0,2), ..., (1,2), ... order. O(n 2**n) work, grid-stride loops
// everywhere. Needs statevector.cu (cplx, index_t) before it.

// theta(x) / normalised phase for basis index x of one sample's data.
__device__ __forceinline__ cplx iqp_phase(index_t x, const real_t* d, int n, int zz, real_t scale) {
    real_t theta = 0;
    int pair = n;
    for (int i = 0; i < n; ++i) {
        const int xi = (int)((x >> i) & 1);
        if (xi) theta += d[i];
        if (zz) {
            for (int j = i + 1; j < n; ++j, ++pair)
                if (xi && ((x >> j) & 1)) theta += d[pair];
        }
    }
    real_t s, c;
    sincos(theta, &s, &c);
    return c_make(c * scale, s * scale);
}

// In-place butterflies of stages [first, last) on `size` amplitudes held by one block.
__device__ __forceinline__ void fwt_stages_in_block(cplx* v, index_t size, int first, int last) {
    for (int s = first; s < last; ++s) {
        const index_t h = ((index_t)1) << s;
        for (index_t k = threadIdx.x; k < size / 2; k += blockDim.x) {
            const index_t i = ((k >> s) << (s + 1)) | (k & (h - 1));
            const cplx a = v[i], b = v[i + h];
            v[i] = c_add(a, b);
            v[i + h] = c_make(a.re - b.re, a.im - b.im);
        }
        __syncthreads();
    }
}

// n <= 10: phase, the whole FWT and the normalisation in ONE launch; one block per sample
// (grid-stride over the batch), 2**n amplitudes in shared memory.
extern "C" __global__ void iqp_encode_small(cplx* out, const real_t* data, int n, int n_data,
                                            int zz, index_t batch) {
    cplx* v = reinterpret_cast<cplx*>(shared_bytes);
    const index_t size = ((index_t)1) << n;
    const real_t scale = (real_t)1 / (real_t)size;
    for (index_t b = blockIdx.x; b < batch; b += gridDim.x) {
        const real_t* d = data + b * n_data;
        for (index_t x = threadIdx.x; x < size; x += blockDim.x) v[x] = iqp_phase(x, d, n, zz, scale);
        __syncthreads();
        fwt_stages_in_block(v, size, 0, n);
        for (index_t x = threadIdx.x; x < size; x += blockDim.x) out[b * size + x] = v[x];
        __syncthreads();
    }
}

// n > 10, step 1: phase and normalisation fused, over the whole batch.
extern "C" __global__ void iqp_phase_normalised(cplx* out, const real_t* data, int n, int n_data,
                                                int zz, index_t batch) {
    const index_t size = ((index_t)1) << n;
    const real_t scale = (real_t)1 / (real_t)size;
    const index_t total = size * batch;
    for (index_t t = blockIdx.x * (index_t)blockDim.x + threadIdx.x; t < total;
         t += (index_t)blockDim.x * gridDim.x) {
        const index_t b = t >> n;
        out[t] = iqp_phase(t & (size - 1), data + b * n_data, n, zz, scale);
    }
}

// Step 2: the low `tile_bits` FWT stages of every tile of 2**tile_bits amplitudes, in shared
// memory (tiles never straddle samples: 2**tile_bits divides 2**n).
extern "C" __global__ void fwt_low_stages(cplx* v, int tile_bits, int state_bits,
                                          index_t n_tiles) {
    TileQubits tq;
    for (int i = 0; i < MAX_TILE_BITS; ++i) tq.q[i] = i;
    tq.n = tile_bits;
    tq.state_bits = state_bits;
    for_each_tile(v, tq, n_tiles, 0, [&](cplx* tile, index_t tile_size) {
        fwt_stages_in_block(tile, tile_size, 0, tile_bits);
    });
}

// Step 3: one higher stage `s` over the batch (pairs (i, i + 2**s) within each sample).
extern "C" __global__ void fwt_stage(cplx* v, int s, index_t total_pairs) {
    const index_t h = ((index_t)1) << s;
    for (index_t k = blockIdx.x * (index_t)blockDim.x + threadIdx.x; k < total_pairs;
         k += (index_t)blockDim.x * gridDim.x) {
        const index_t i = ((k >> s) << (s + 1)) | (k & (h - 1));
        const cplx a = v[i], b = v[i + h];
        v[i] = c_add(a, b);
        v[i + h] = c_make(a.re - b.re, a.im - b.im);
    }
}
