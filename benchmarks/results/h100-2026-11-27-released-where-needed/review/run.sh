#!/bin/bash
# Review commit aee0888: GPU tests of steps 6 and 7, compute-sanitizer, and steps 6 and 7 on Delaunay 2^22 and the grid.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/rv1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/rv1.tgz rv1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
timeout 120 python -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_step6_push_pull.py tests/test_step7_adaptive.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for run in "memcheck push_pull" "racecheck push_pull" "memcheck adaptive"; do set -- $run
  timeout 60 $CS --tool $1 python .devrun/ms_check2.py $2 > $R/$1-$2.log 2>&1
  echo "$1 $2 rc $? $(grep -h 'SUMMARY' $R/$1-$2.log) $(grep -h ' ok$' $R/$1-$2.log)" | tee -a $R/sanitizer-summary.txt
done
timeout 150 python3 benchmarks/ladder.py push_pull adaptive --suite large --graphs delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^\| (push_pull|adaptive) " $R/large/table.md
