#!/bin/bash
# Steps 5, 6 and 7 at this commit (the counting crossing in steps 6 and 7; wide pulls off) beside steps 6 and 7 without the crossing (pp-old, ad-old) and step 6 with wide pulls: GPU tests, compute-sanitizer, the standard suite, Delaunay 2^20/2^22, Kronecker-22, road-FLA (held out), Delaunay 2^24.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/fin5; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/fin5.tgz fin5' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
timeout 90 python -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_step6_push_pull.py tests/test_step7_adaptive.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
cp .devrun/ms_check2.py $R/
for run in "memcheck push_pull" "racecheck push_pull" "memcheck adaptive"; do set -- $run
  timeout 80 $CS --tool $1 python .devrun/ms_check2.py $2 > $R/$1-$2.log 2>&1
  echo "$1 $2 rc $? $(grep -h 'SUMMARY' $R/$1-$2.log) $(grep -h ' ok$' $R/$1-$2.log)" | tee -a $R/sanitizer-summary.txt
done
RUNGS='persistent {"variant":"push_pull","label":"pp-old","counting_crossing":false,"write_after_arrival":false} push_pull {"variant":"push_pull","label":"pp-wide","wide_pulls":true} {"variant":"adaptive","label":"ad-old","counting_crossing":false,"write_after_arrival":false} adaptive {"variant":"adaptive","label":"adaptive-again"}'
timeout 200 python3 benchmarks/ladder.py $RUNGS --suite standard --graphs rodinia-1M,kronecker-20,grid-1000x1000,hubs-1000x1000,road-NY,road-BAY,email-Enron,as-22july06 --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
timeout 170 python3 benchmarks/ladder.py $RUNGS --suite large --graphs delaunay-20,delaunay-22,kronecker-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
timeout 60 python3 benchmarks/ladder.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
python3 benchmarks/fastest_rung.py adaptive $R/*/results.json | grep -E "^\|"
grep -hE "^###|^\| (push_pull|pp-old|pp-wide|adaptive|ad-old) " $R/*/table.md
timeout 150 python3 benchmarks/ladder.py '{"variant":"push_pull","label":"pp-old","counting_crossing":false,"write_after_arrival":false}' push_pull adaptive --suite large --graphs delaunay-24 --sources 8 --repeats 2 --backend cuda --data .devdata --out $R/delaunay-24 > $R/delaunay-24.log 2>&1; echo d24 rc=$?
grep -hE "^###|^\| (push_pull|pp-old|adaptive) " $R/delaunay-24/table.md
