#!/bin/bash
# Steps 5, 6 and 7 in turns at the session's last code: the standard suite, Delaunay 2^20/2^22, Kronecker-22, road-FLA (held out), Delaunay 2^24.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/final3; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/final3.tgz final3' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='persistent push_pull adaptive {"variant":"adaptive","label":"adaptive-again"}'
timeout 150 python3 benchmarks/ladder.py $RUNGS --suite standard --graphs rodinia-1M,kronecker-20,grid-1000x1000,hubs-1000x1000,road-NY,road-BAY,email-Enron,as-22july06 --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
timeout 110 python3 benchmarks/ladder.py $RUNGS --suite large --graphs delaunay-20,delaunay-22,kronecker-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
timeout 60 python3 benchmarks/ladder.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
timeout 300 python3 benchmarks/ladder.py $RUNGS --suite large --graphs delaunay-24 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/delaunay-24 > $R/delaunay-24.log 2>&1; echo d24 rc=$?
python3 benchmarks/fastest_rung.py adaptive $R/*/results.json | grep -E "^\|"
grep -hE "^###|^\| (push_pull|adaptive) " $R/*/table.md
