#!/bin/bash
# Which of the two changes costs on as-22july06 and Kronecker-22: steps 6 and 7 with the counting crossing alone, wide pulls alone, both, neither. as-22july06, road-NY, Kronecker-22, Delaunay 2^22.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/wp1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/wp1.tgz wp1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='{"variant":"push_pull","label":"pp-old","counting_crossing":false,"write_after_arrival":false,"wide_pulls":false} {"variant":"push_pull","label":"pp-wide","counting_crossing":false,"write_after_arrival":false} {"variant":"push_pull","label":"pp-crossing","wide_pulls":false} push_pull {"variant":"adaptive","label":"ad-old","counting_crossing":false,"write_after_arrival":false,"wide_pulls":false} {"variant":"adaptive","label":"ad-crossing","wide_pulls":false} adaptive'
timeout 100 python3 benchmarks/ladder.py $RUNGS --suite standard --graphs as-22july06,road-NY --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE '^###|^\| (pp|push|ad)' $R/standard/table.md
timeout 200 python3 benchmarks/ladder.py $RUNGS --suite large --graphs kronecker-22,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| (pp|push|ad)' $R/large/table.md
