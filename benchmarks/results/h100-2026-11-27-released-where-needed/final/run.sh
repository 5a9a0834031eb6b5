#!/bin/bash
# The crossing released only where needed, its edges sent ahead of the arrival and read with the flags in one trip (this commit): GPU tests of steps 6 and 7, compute-sanitizer, then every arrival released (pp_fenced, ad_fenced, fx_probe.py) beside it: Delaunay 2^20/2^22, Kronecker-22, road-FLA (held out), the standard suite, and Delaunay 2^24 (generated in the background meanwhile).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/fx2; rm -rf $R; mkdir -p $R /tmp/gen
trap 'cd /tmp && tar czf $OUT/fx2.tgz fx2' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt; git log -1 --format=%H > $R/commit.txt
( /usr/bin/time -v python -m rodinia_bfs generate delaunay --scale 24 --seed 0 -o /tmp/gen/delaunay-24.npz > $R/generate-24.log 2>&1; echo "generate rc=$?" >> $R/generate-24.log ) &
GEN=$!
timeout 100 python -m pytest -q -m gpu -n 8 -p no:cacheprovider tests/test_step6_push_pull.py tests/test_step7_adaptive.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
grep -E "FAILED|Error" $R/gpu-tests.log | head -5
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
cp .devrun/ms_check2.py .devrun/fx_probe.py $R/
for run in "memcheck push_pull" "racecheck push_pull" "memcheck adaptive"; do set -- $run
  timeout 60 $CS --tool $1 python .devrun/ms_check2.py $2 > $R/$1-$2.log 2>&1
  echo "$1 $2 rc $? $(grep -h 'SUMMARY' $R/$1-$2.log) $(grep -h ' ok$' $R/$1-$2.log)" | tee -a $R/sanitizer-summary.txt
done
RUNGS='push_pull pp_fenced adaptive ad_fenced'
timeout 130 python3 .devrun/fx_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22,kronecker-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| " $R/large/table.md | grep -v "^| rung\|^|---"
timeout 50 python3 .devrun/fx_probe.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE "^###|^\| " $R/fla/table.md | grep -v "^| rung\|^|---"
timeout 170 python3 .devrun/fx_probe.py persistent $RUNGS --suite standard --graphs rodinia-1M,kronecker-20,grid-1000x1000,hubs-1000x1000,road-NY,road-BAY,email-Enron,as-22july06 --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE "^###|^\| " $R/standard/table.md | grep -v "^| rung\|^|---"
wait $GEN; grep -E "Elapsed|generate rc" $R/generate-24.log
timeout 150 python3 .devrun/fx_probe.py push_pull pp_fenced adaptive --files /tmp/gen/delaunay-24.npz --sources 8 --repeats 2 --backend cuda --data .devdata --out $R/delaunay-24 > $R/delaunay-24.log 2>&1; echo d24 rc=$?
grep -hE "^###|^\| (push_pull|pp_fenced|adaptive) |levels" $R/delaunay-24/table.md
python3 benchmarks/fastest_rung.py adaptive --among persistent,push_pull,adaptive $R/large/results.json $R/fla/results.json $R/standard/results.json -o $R/table.md > /dev/null 2>&1; grep -E "^\|" $R/table.md | head -14
