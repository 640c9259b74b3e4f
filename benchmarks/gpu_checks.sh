#!/usr/bin/env bash
# Every GPU check in one call, for a machine with an NVIDIA GPU lent for minutes: the GPU tests,
# the MPI slices on the GPU, then the GPU benchmarks (state vectors against qibojit and
# cuStateVec, density matrices, Pauli propagation, matrix-product states). Each step has its
# own time limit, so one that hangs leaves the others their time; logs go to $OUT (or
# /tmp/gpu-checks).
#
#     bash benchmarks/gpu_checks.sh [tests] [bench] [pauli] [mps]   # default: all four
#
# Wheels in .whl/ (peers, and anything the machine's Python lacks) are installed first into
# /tmp/site with no index. The peers of the bench step: custatevec-cu13 (60 MB: with this
# checkout it just fits a call's 64 MiB), qibo, qibojit, openqasm3 and antlr4-python3-runtime
# for Python 3.12; the mps step needs physics-tenpy and the pauli step Qiskit, which then go in
# a call of their own. Limits in seconds: TESTS_S, BENCH_S, PAULI_S, MPS_S; GPU_BENCH_ARGS
# and PAULI_ARGS pass arguments to gpu_bench.py (default: --repeat 5 --gate-repeat 20
# --sizes 16,24,28 --launches 24: at 16 qubits a kernel takes microseconds, so the single
# gates show the host work per launch; a best of 20 steadies the single gates, and the
# launch table says where one gate's time goes) and pauli_bench.py (default: --repeat 2).
set -u
out=${OUT:-/tmp/gpu-checks}
mkdir -p "$out"
steps=${*:-tests bench pauli mps}
if compgen -G ".whl/*.whl" >/dev/null; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
export PYTHONUNBUFFERED=1
# genqsim's backends are found through its entry points: install the checkout (no index, no
# build isolation: the machine's own setuptools)
python3 -m pip install -q --no-index --no-deps --no-build-isolation -e . || exit 1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import platform, numpy, numba, cupy; print(platform.processor() or platform.machine(),
'numpy', numpy.__version__, 'numba', numba.__version__, 'cupy', cupy.__version__,
'CUDA runtime', cupy.cuda.runtime.runtimeGetVersion())"
lscpu | grep -E "^Model name|^CPU\(s\)" | tr -s ' '

step() {  # step NAME LIMIT_S COMMAND...: run it, its log in $out/NAME.log, its status shown
    local name=$1 limit=$2
    shift 2
    local start=$SECONDS
    echo "== $name (limit ${limit} s)"
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    tail -n "${TAIL:-40}" "$out/$name.log"
    echo "== $name: exit $rc after $((SECONDS - start)) s"
}

for s in $steps; do
    case $s in
    tests)
        step tests "${TESTS_S:-240}" python3 -m pytest -m gpu -n 8 -q -p no:cacheprovider \
            tests/test_gpu.py tests/test_mps_gpu.py tests/test_state_protocol.py \
            tests/test_distributed_ranks.py
        if command -v mpiexec >/dev/null; then
            # Open MPI refuses root unless told twice; the machines here run commands as root
            export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
            TAIL=8 step mpi "${MPI_S:-90}" mpiexec -n 2 python3 -m pytest -m gpu -q \
                -p no:cacheprovider tests/test_distributed_ranks.py
        else
            echo "== mpi: no mpiexec on this machine, MPI slices not run"
        fi
        ;;
    bench)
        # shellcheck disable=SC2086
        TAIL=200 step bench "${BENCH_S:-200}" python3 benchmarks/gpu_bench.py \
            ${GPU_BENCH_ARGS:---repeat 5 --gate-repeat 20 --sizes 16,24,28 --launches 24} \
            --json "$out/gpu.json"
        ;;
    pauli)
        # shellcheck disable=SC2086
        TAIL=30 step pauli "${PAULI_S:-60}" python3 benchmarks/pauli_bench.py --device gpu \
            --skip-symbolic ${PAULI_ARGS:---repeat 2}
        ;;
    mps)
        TAIL=30 step mps "${MPS_S:-90}" python3 benchmarks/mps_bench.py --device gpu \
            --sizes 32:128 --steps 20
        ;;
    *) echo "unknown step $s (tests, bench, pauli, mps)" ;;
    esac
done
