#!/bin/bash
# Small lists (SMALL_LISTS, an option at this commit): GPU tests of steps 6 and 7, compute-sanitizer with the lists on, then steps 6 and 7 with and without them on the standard graphs (FLA held out) and Delaunay 2^20/2^22, Kronecker-22.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/sl1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/sl1.tgz sl1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
timeout 120 python -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_step6_push_pull.py tests/test_step7_adaptive.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
cp .devrun/ms_check2.py $R/
for run in "memcheck push_pull" "racecheck push_pull" "memcheck adaptive"; do set -- $run
  EXTRA='{"small_lists":true}' timeout 70 $CS --tool $1 python .devrun/ms_check2.py $2 > $R/$1-$2.log 2>&1
  echo "$1 $2 (small_lists) rc $? $(grep -h 'SUMMARY' $R/$1-$2.log) $(grep -h ' ok$' $R/$1-$2.log)" | tee -a $R/sanitizer-summary.txt
done
RUNGS='push_pull {"variant":"push_pull","label":"pp-lists","small_lists":true} adaptive {"variant":"adaptive","label":"ad-lists","small_lists":true}'
timeout 150 python3 benchmarks/ladder.py $RUNGS --suite standard --graphs kronecker-20,grid-1000x1000,hubs-1000x1000,road-NY,road-BAY,as-22july06 --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
timeout 160 python3 benchmarks/ladder.py $RUNGS --suite large --graphs delaunay-20,delaunay-22,kronecker-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| (push_pull|pp-lists|adaptive|ad-lists) " $R/*/table.md
