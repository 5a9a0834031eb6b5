#!/bin/bash
# The counting crossing: the edge word a plain atomic after the release, the tally sent only by flagged blocks. racecheck and the ladder on road-NY, the grid and Delaunay 2^22.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/cc3; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/cc3.tgz cc3' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for run in "racecheck push_pull"; do set -- $run
  timeout 100 $CS --tool $1 python .devrun/ms_check2.py $2 > $R/$1-$2.log 2>&1
  echo "$1 $2 rc $? $(grep -h 'SUMMARY' $R/$1-$2.log) $(grep -h ' ok$' $R/$1-$2.log)" | tee -a $R/sanitizer-summary.txt
done
RUNGS='{"variant":"push_pull","label":"pp-old","counting_crossing":false,"write_after_arrival":false,"wide_pulls":false} {"variant":"push_pull","label":"pp-counting","write_after_arrival":false} push_pull {"variant":"push_pull","label":"pp-push","direction":"push"} {"variant":"push_pull","label":"pp-old-push","direction":"push","counting_crossing":false,"write_after_arrival":false}'
timeout 120 python3 benchmarks/ladder.py $RUNGS --suite standard --graphs road-NY,grid-1000x1000 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE '^###|^\| (pp|push|ad)' $R/standard/table.md
timeout 200 python3 benchmarks/ladder.py $RUNGS --suite large --graphs delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| (pp|push|ad)' $R/large/table.md
