#!/bin/bash
# The crossing as it is (push_pull, commit 463d35c) beside the crossing of commit ff34bd4 (pp_old) and that with every arrival relaxed (pp_old_relaxed, a bound), in one call; and pp_sweep64 (old_probe.py).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/old1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/old1.tgz old1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
cp .devrun/old_probe.py $R/
RUNGS='push_pull pp_old pp_old_relaxed pp_sweep64'
timeout 200 python3 .devrun/old_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| " $R/large/table.md | grep -v "^| rung\|^|---"
timeout 200 python3 .devrun/old_probe.py $RUNGS --suite standard --graphs kronecker-20,grid-1000x1000,road-NY,road-BAY,as-22july06 --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE "^###|^\| " $R/standard/table.md | grep -v "^| rung\|^|---"
