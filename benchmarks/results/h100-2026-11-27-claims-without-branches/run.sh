#!/bin/bash
# Claims of rows with no branch per entry, as committed: before/after in turns, FLA held out; GPU tests; sanitizer.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/nb1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/nb1.tgz nb1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
mkdir -p .devrun/old2 && patch -s -o .devrun/ladder_before2.py benchmarks/results/h100-2026-11-27-rows-by-count/ladder_before.py benchmarks/results/h100-2026-11-27-claims-without-branches/ladder_before2.diff
for f in single_block_expand.h single_block_queues.h single_block.h persistent_records.h; do git show 8f89170:hip_kernels/$f > .devrun/old2/$f; done
RUNGS='persistent_before persistent adaptive_before adaptive'
timeout 150 python3 .devrun/ladder_before2.py $RUNGS --suite standard --graphs road-NY,road-BAY,grid-1000x1000 --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo std rc=$?
grep -hE '^###|^\| (pers|adap)' $R/standard.log
timeout 100 python3 .devrun/ladder_before2.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE '^###|^\| (pers|adap)' $R/fla.log
timeout 150 python -m pytest -q -m gpu -n 8 -p no:cacheprovider > $R/gpu-tests.log 2>&1; tail -1 $R/gpu-tests.log
patch -s -o /tmp/ms_check2.py benchmarks/results/h100-2026-11-27-step7-against-step6/checks-95c2793/ms_check.py benchmarks/results/h100-2026-11-27-rows-by-count/checks/ms_check2.diff
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck; do
  timeout 60 $CS --tool $tool --error-exitcode 9 python3 benchmarks/results/h100-2026-11-27-row-halves/ms_halves.py persistent adaptive > $R/san-$tool-halves.log 2>&1; echo $tool halves rc=$?
  timeout 90 $CS --tool $tool --error-exitcode 9 python3 /tmp/ms_check2.py persistent adaptive > $R/san-$tool-rows.log 2>&1; echo $tool rows rc=$?
  grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $R/san-$tool-*.log
done
