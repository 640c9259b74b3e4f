// CUDA's kernel dialect on the CPU, for checking genqsim's kernels where no GPU is lent.
//
// The CUDA sources compile unchanged as C++ with this header before them (tests/emulated_cupy.py
// prepends it, after turning `extern __shared__` into `extern`). A launch runs its blocks one
// after another; the threads of a block run as fibers (ucontext) on one OS thread, each until
// it finishes or reaches __syncthreads(), which hands control to the next thread. Every thread
// of a block reaches a barrier before any passes it, as on the GPU, so shared memory (a
// function's `__shared__` variable is a static one here, the dynamic buffer one array) behaves
// as it does there. What this does not show: speed, races between threads that a barrier does
// not order (run the threads in both orders to find those: `emu_run`'s `reverse`), warp-level
// behaviour (the kernels use none) and device limits (registers, shared memory per block).

#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <ucontext.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__ __restrict
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct emu_dim3 {
    unsigned int x, y, z;
};

static emu_dim3 threadIdx, blockIdx, blockDim, gridDim;

#define EMU_SHARED_BYTES (48 * 1024)  // the dynamic shared memory a block gets without opting in
alignas(16) unsigned char shared_bytes[EMU_SHARED_BYTES];  // the sources declare it `extern`

inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline void sincos(float x, float* s, float* c) { ::sincosf(x, s, c); }

static void __syncthreads();

namespace emu {

constexpr std::size_t kStackBytes = 1 << 16;
constexpr unsigned kMaxThreads = 1024;

typedef void (*Entry)(void* const* args);

struct Launch {
    Entry entry = nullptr;
    void* const* args = nullptr;
    ucontext_t scheduler;
    ucontext_t fibers[kMaxThreads];
    bool done[kMaxThreads];
    unsigned current = 0;
    unsigned char* stacks = nullptr;
    int reverse = 0;  // 1: a block's threads run in reverse order between barriers
};

static Launch launch;

static sigjmp_buf fault;  // where a launch goes back to after an access outside memory

static void on_fault(int) { siglongjmp(fault, 1); }

static void run_thread() {
    launch.entry(launch.args);
    launch.done[launch.current] = true;
    swapcontext(&launch.fibers[launch.current], &launch.scheduler);
}

}  // namespace emu

static void __syncthreads() {
    swapcontext(&emu::launch.fibers[emu::launch.current], &emu::launch.scheduler);
}

// Run `entry` (a kernel's unpacking wrapper) on a grid of `grid` blocks of `block` threads
// with its arguments at the addresses in `args` (cuLaunchKernel's kernelParams) and `shared`
// bytes of dynamic shared memory, each block's threads in order between barriers, or in
// reverse order where `reverse` is 1. Each block finds its shared memory filled with 0xFF
// bytes (NaN), so a kernel that reads what it never wrote shows. Returns 0; 1 for a block
// larger than the emulator holds or an empty grid, 2 for more shared memory than a block
// gets, 3 for an access outside mapped memory (device arrays end at a page no access may
// touch: CUDA's illegal address), after which the launch is abandoned.
static int run_grid(emu::Entry entry, unsigned grid, unsigned block, void* const* args,
                    std::size_t shared);

extern "C" int emu_run(emu::Entry entry, unsigned grid, unsigned block, void* const* args,
                       std::size_t shared, int reverse) {
    emu::launch.reverse = reverse;
    if (block == 0 || block > emu::kMaxThreads || grid == 0) return 1;
    if (shared > EMU_SHARED_BYTES) return 2;
    struct sigaction handler, old_segv, old_bus;
    std::memset(&handler, 0, sizeof handler);
    handler.sa_handler = emu::on_fault;
    sigemptyset(&handler.sa_mask);
    sigaction(SIGSEGV, &handler, &old_segv);
    sigaction(SIGBUS, &handler, &old_bus);
    const int status = sigsetjmp(emu::fault, 1) ? 3 : run_grid(entry, grid, block, args, shared);
    sigaction(SIGSEGV, &old_segv, nullptr);
    sigaction(SIGBUS, &old_bus, nullptr);
    return status;
}

static int run_grid(emu::Entry entry, unsigned grid, unsigned block, void* const* args,
                    std::size_t shared) {
    using emu::launch;
    if (launch.stacks == nullptr)
        launch.stacks = static_cast<unsigned char*>(std::malloc(emu::kStackBytes * emu::kMaxThreads));
    launch.entry = entry;
    launch.args = args;
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; ++b) {
        blockIdx = {b, 0, 0};
        std::memset(shared_bytes, 0xFF, shared);
        for (unsigned t = 0; t < block; ++t) {
            launch.done[t] = false;
            getcontext(&launch.fibers[t]);
            launch.fibers[t].uc_stack.ss_sp = launch.stacks + t * emu::kStackBytes;
            launch.fibers[t].uc_stack.ss_size = emu::kStackBytes;
            launch.fibers[t].uc_link = nullptr;
            makecontext(&launch.fibers[t], emu::run_thread, 0);
        }
        for (bool running = true; running;) {  // one round: every thread up to its next barrier
            running = false;
            for (unsigned k = 0; k < block; ++k) {
                const unsigned t = launch.reverse ? block - 1 - k : k;
                if (launch.done[t]) continue;
                launch.current = t;
                threadIdx = {t, 0, 0};
                swapcontext(&launch.scheduler, &launch.fibers[t]);
                running = running || !launch.done[t];
            }
        }
    }
    return 0;
}
