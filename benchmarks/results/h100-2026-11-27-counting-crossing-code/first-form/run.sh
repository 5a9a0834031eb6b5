#!/bin/bash
# The counting crossing in the code (COUNTING_CROSSING, WRITE_AFTER_ARRIVAL) and WIDE_PULLS: GPU tests of steps 6 and 7, compute-sanitizer, and the ladder of steps 6 and 7 (old, wide pulls, counting, after) on the standard graphs and the meshes.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/cc1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/cc1.tgz cc1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
timeout 150 python -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_step6_push_pull.py tests/test_step7_adaptive.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
cp .devrun/ms_check2.py $R/
for run in "memcheck push_pull" "memcheck adaptive" "racecheck push_pull"; do set -- $run
  timeout 100 $CS --tool $1 python .devrun/ms_check2.py $2 > $R/$1-$2.log 2>&1
  echo "$1 $2 rc $? $(grep -h 'SUMMARY' $R/$1-$2.log) $(grep -h ' ok$' $R/$1-$2.log)" | tee -a $R/sanitizer-summary.txt
done
RUNGS='{"variant":"push_pull","label":"pp-old","counting_crossing":false,"write_after_arrival":false,"wide_pulls":false} {"variant":"push_pull","label":"pp-wide","counting_crossing":false,"write_after_arrival":false} {"variant":"push_pull","label":"pp-counting","write_after_arrival":false} push_pull {"variant":"push_pull","label":"pp-again"} {"variant":"adaptive","label":"ad-old","counting_crossing":false,"write_after_arrival":false,"wide_pulls":false} adaptive'
timeout 150 python3 benchmarks/ladder.py $RUNGS --suite standard --graphs road-NY,grid-1000x1000,kronecker-20 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE '^###|^\| (pp|push|ad)' $R/standard/table.md
timeout 220 python3 benchmarks/ladder.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| (pp|push|ad)' $R/large/table.md
