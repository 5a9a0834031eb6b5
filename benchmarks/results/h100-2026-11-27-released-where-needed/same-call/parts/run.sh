#!/bin/bash
# Which part of the crossing's new layout costs (parts_probe.py, on commit fa6d3e9's code): the edge word waited for, the small queue written once per search; beside the crossing of ff34bd4 with every arrival relaxed (the bound).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/parts1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/parts1.tgz parts1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
cp .devrun/parts_probe.py .devrun/old_probe.py $R/
RUNGS='push_pull pp_noedgewait pp_twosets pp_both pp_old_relaxed'
timeout 200 python3 .devrun/parts_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| " $R/large/table.md | grep -v "^| rung\|^|---"
timeout 150 python3 .devrun/parts_probe.py $RUNGS --suite standard --graphs grid-1000x1000,road-NY --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE "^###|^\| " $R/standard/table.md | grep -v "^| rung\|^|---"
