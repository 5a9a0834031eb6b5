#!/bin/bash
# Wide pulls measured by the vertices a sweep visits (sw_probe.py: pull only a frontier with more edges than active_count / K) beside Beamer's rule alone (push_pull, adaptive) and wide pulls by the grid's threads (pp-wide), at commit 463d35c: Delaunay 2^20/2^22, Kronecker-22 and the standard suite (road-FLA held out).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/sw1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/sw1.tgz sw1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
cp .devrun/sw_probe.py $R/
RUNGS='push_pull {"variant":"push_pull","label":"pp-wide","wide_pulls":true} pp_sweep4 pp_sweep16 pp_sweep64 adaptive ad_sweep16'
timeout 200 python3 .devrun/sw_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22,kronecker-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| " $R/large/table.md | grep -v "^| rung\|^|---"
timeout 300 python3 .devrun/sw_probe.py $RUNGS --suite standard --graphs rodinia-1M,kronecker-20,grid-1000x1000,hubs-1000x1000,road-NY,road-BAY,email-Enron,as-22july06 --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE "^###|^\| " $R/standard/table.md | grep -v "^| rung\|^|---"
