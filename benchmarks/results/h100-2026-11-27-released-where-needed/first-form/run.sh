#!/bin/bash
# The crossing released only where needed (this commit's working tree): GPU tests of steps 6 and 7, compute-sanitizer, then the crossing with every arrival released (pp_fenced, ad_fenced, fx_probe.py) beside it, and step 6 with pull_growth 1, on Delaunay 2^20/2^22, Kronecker-22, road-FLA (held out) and Delaunay 2^24 (generated in the background meanwhile).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/fx1; rm -rf $R; mkdir -p $R /tmp/gen
trap 'cd /tmp && tar czf $OUT/fx1.tgz fx1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
( /usr/bin/time -v python -m rodinia_bfs generate delaunay --scale 24 --seed 0 -o /tmp/gen/delaunay-24.npz > $R/generate-24.log 2>&1; echo "generate rc=$?" >> $R/generate-24.log ) &
GEN=$!
timeout 120 python -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_step6_push_pull.py tests/test_step7_adaptive.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
grep -E "FAILED|Error" $R/gpu-tests.log | head -5
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
cp .devrun/ms_check2.py .devrun/fx_probe.py $R/
for run in "memcheck push_pull" "racecheck push_pull" "memcheck adaptive"; do set -- $run
  timeout 70 $CS --tool $1 python .devrun/ms_check2.py $2 > $R/$1-$2.log 2>&1
  echo "$1 $2 rc $? $(grep -h 'SUMMARY' $R/$1-$2.log) $(grep -h ' ok$' $R/$1-$2.log)" | tee -a $R/sanitizer-summary.txt
done
RUNGS='push_pull pp_fenced {"variant":"push_pull","label":"pp-growth1","pull_growth":1} adaptive ad_fenced'
timeout 170 python3 .devrun/fx_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22,kronecker-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| " $R/large/table.md | grep -v "^| rung\|^|---"
timeout 70 python3 .devrun/fx_probe.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE "^###|^\| " $R/fla/table.md | grep -v "^| rung\|^|---"
wait $GEN; grep -E "Elapsed|generate rc" $R/generate-24.log
timeout 200 python3 .devrun/fx_probe.py push_pull pp_fenced adaptive --files /tmp/gen/delaunay-24.npz --sources 8 --repeats 2 --backend cuda --data .devdata --out $R/delaunay-24 > $R/delaunay-24.log 2>&1; echo d24 rc=$?
grep -hE "^###|^\| (push_pull|pp_fenced|adaptive) |levels" $R/delaunay-24/table.md
