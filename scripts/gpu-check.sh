#!/usr/bin/env bash
# Check the GPU steps on a machine with an NVIDIA or AMD GPU: the GPU tests, then
# compute-sanitizer memcheck and racecheck over every GPU step (NVIDIA only).
# Usage: scripts/gpu-check.sh OUTDIR [DATA_DIR]
# DATA_DIR holds road/ and social/ (default: ../shared/data). Logs go to OUTDIR.
set -uo pipefail
out=${1:?usage: scripts/gpu-check.sh OUTDIR [DATA_DIR]}
data=${2:-../shared/data}
mkdir -p "$out"
export RODINIA_BFS_DATA=$data PYTHONUNBUFFERED=1
python=${PYTHON:-python3}
status=0

echo "== GPU tests"
$python -m pytest -q -m gpu -rs tests/ 2>&1 | tee "$out/gpu-tests.log" | tail -n 25
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1

# Step 1 from the plain HIP C++ host program: built with nvcc (through the CUDA
# compatibility header) or hipcc, run on a generated graph of a million vertices.
compiler=$(command -v nvcc >/dev/null && echo nvcc || { command -v hipcc >/dev/null && echo hipcc; })
if [ -n "$compiler" ]; then
    echo "== examples/cpp with $compiler"
    make -s -C examples/cpp "$compiler" BUILD="$(cd "$out" && pwd)" >"$out/cpp-build.log" 2>&1 &&
        "$out/rodinia_bfs_step1" --generate 1000000 2>&1 | tee "$out/cpp-run.log" | tail -n 1
    [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; tail -n 5 "$out/cpp-build.log"; }
fi

if command -v compute-sanitizer >/dev/null; then
    steps=$($python -c "from rodinia_bfs.variants import STEPS; print(' '.join(STEPS))")
    $python -m rodinia_bfs generate hubs --rows 60 -o "$out/hubs.mtx" >/dev/null
    for tool in memcheck racecheck; do
        for step in $steps; do
            # memcheck on a real graph and on hubs; racecheck (shared memory) on hubs, whose
            # hubs drive the block- and warp-wide paths of the later steps.
            graphs=("$out/hubs.mtx")
            [ "$tool" = memcheck ] && graphs+=("$data/social/as-22july06.mtx")
            for graph in "${graphs[@]}"; do
                log="$out/sanitizer-$tool-$step-$(basename "$graph" .mtx).log"
                compute-sanitizer --tool "$tool" --error-exitcode 99 \
                    $python -m rodinia_bfs run "$graph" --variant "$step" --backend cuda \
                    --validate >"$log" 2>&1
                rc=$?
                summary=$(grep -h -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -n 1)
                echo "$tool $step $(basename "$graph"): exit $rc; $summary"
                [ "$rc" -eq 0 ] || status=1
            done
        done
    done
fi
exit $status
