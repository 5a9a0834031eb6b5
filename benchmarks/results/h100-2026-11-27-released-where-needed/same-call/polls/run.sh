#!/bin/bash
# Thread 0's poll of the crossing's queue word paused between loads (nap_probe.py), at commit e77fd65: do the polls slow the arrivals on the same line?
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/nap1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/nap1.tgz nap1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
cp .devrun/nap_probe.py $R/
RUNGS='push_pull pp_nap32 pp_nap128 pp_nap512'
timeout 150 python3 .devrun/nap_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| " $R/large/table.md | grep -v "^| rung\|^|---"
timeout 120 python3 .devrun/nap_probe.py $RUNGS --suite standard --graphs kronecker-20,grid-1000x1000 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE "^###|^\| " $R/standard/table.md | grep -v "^| rung\|^|---"
