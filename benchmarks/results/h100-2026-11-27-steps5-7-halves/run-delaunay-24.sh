#!/bin/bash
# Steps 5, 6 and 7 in turns on Delaunay 2^24 at the session's code.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/final2; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/final2.tgz final2' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='persistent push_pull adaptive {"variant":"adaptive","label":"adaptive-again"}'
timeout 560 python3 benchmarks/ladder.py $RUNGS --suite large --graphs delaunay-24 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/delaunay-24 > $R/delaunay-24.log 2>&1; echo d24 rc=$?
grep -hE '^###|^\| (pers|push|adap)' $R/delaunay-24.log; python3 benchmarks/fastest_rung.py adaptive $R/delaunay-24/results.json | grep -E '^\|'
