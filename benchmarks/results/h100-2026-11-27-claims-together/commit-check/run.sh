#!/bin/bash
# The last commit on the GPU: GPU tests of steps 6 and 7, compute-sanitizer (default kernels, and step 6's batch of two
# edges with claims by bit sent together), then steps 6 and 7 on Delaunay 2^20/2^22, Kronecker-22 and road-FLA (held out).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devvb RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/fin6; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/fin6.tgz fin6' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt; git log -1 --format=%H > $R/commit.txt
timeout 110 python -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_step6_push_pull.py tests/test_step7_adaptive.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
grep -E "FAILED|Error" $R/gpu-tests.log | head -5
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
cp benchmarks/results/h100-2026-11-27-counting-crossing-code/final/ms_check2.py benchmarks/results/h100-2026-11-27-claims-together/commit-check/run.sh $R/
for run in "memcheck push_pull" "racecheck push_pull" "memcheck adaptive"; do set -- $run
  timeout 60 $CS --tool $1 python benchmarks/results/h100-2026-11-27-counting-crossing-code/final/ms_check2.py $2 > $R/$1-$2.log 2>&1
  echo "$1 $2 rc $? $(grep -h 'SUMMARY' $R/$1-$2.log) $(grep -h ' ok$' $R/$1-$2.log)" | tee -a $R/sanitizer-summary.txt
done
EXTRA='{"visit_batch": 2, "claim_bits": true}' timeout 60 $CS --tool memcheck python benchmarks/results/h100-2026-11-27-counting-crossing-code/final/ms_check2.py push_pull > $R/memcheck-push_pull-batch.log 2>&1
echo "memcheck push_pull batch rc $? $(grep -h 'SUMMARY' $R/memcheck-push_pull-batch.log) $(grep -h ' ok$' $R/memcheck-push_pull-batch.log)" | tee -a $R/sanitizer-summary.txt
timeout 120 python3 benchmarks/ladder.py push_pull adaptive --suite large --graphs delaunay-20,delaunay-22,kronecker-22 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| " $R/large/table.md | grep -v "^| rung\|^|---"
timeout 50 python3 benchmarks/ladder.py push_pull adaptive --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE "^###|^\| " $R/fla/table.md | grep -v "^| rung\|^|---"
