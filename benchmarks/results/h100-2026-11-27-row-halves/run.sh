#!/bin/bash
# Row halves (SB_ROW_HALVES) as committed: steps 5 and 7 with and without, in turns; FLA held out; sanitizer.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/halves2; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/halves2.tgz halves2' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='{"variant":"persistent","label":"persistent-whole-rows","row_halves":false} persistent {"variant":"adaptive","label":"adaptive-whole-rows","row_halves":false} adaptive'
timeout 200 python3 benchmarks/ladder.py $RUNGS --suite standard --graphs road-NY,road-BAY,grid-1000x1000 --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo std rc=$?
grep -hE '^###|^\| (pers|adap)' $R/standard.log
timeout 120 python3 benchmarks/ladder.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE '^###|^\| (pers|adap)' $R/fla.log
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck; do
  timeout 100 $CS --tool $tool --error-exitcode 9 python3 benchmarks/results/h100-2026-11-27-row-halves/ms_halves.py persistent adaptive > $R/san-$tool.log 2>&1; echo $tool rc=$?
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY|ok$" $R/san-$tool.log | tail -5
done
timeout 200 python -m pytest -q -m gpu -n 8 -p no:cacheprovider > $R/gpu-tests.log 2>&1; tail -1 $R/gpu-tests.log
