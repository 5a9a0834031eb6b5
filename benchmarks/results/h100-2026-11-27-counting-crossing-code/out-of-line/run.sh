#!/bin/bash
# The counting crossing with the edges in the tally (read after the poll), beside the old ending; and a probe with the bottom-up sweep and the conversions out of line (__noinline__). Road-NY, the grid, Kronecker-20, Delaunay 2^22.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/cy1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/cy1.tgz cy1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='{"variant":"push_pull","label":"pp-old","counting_crossing":false,"write_after_arrival":false,"wide_pulls":false} {"variant":"push_pull","label":"pp-counting","write_after_arrival":false} push_pull push_pull_ool {"variant":"push_pull","label":"pp-push","direction":"push"} {"variant":"adaptive","label":"ad-old","counting_crossing":false,"write_after_arrival":false,"wide_pulls":false} adaptive adaptive_ool'
timeout 130 python3 .devrun/cy_probe.py $RUNGS --suite standard --graphs road-NY,grid-1000x1000,kronecker-20 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE '^###|^\| (pp|push|ad)' $R/standard/table.md
timeout 200 python3 .devrun/cy_probe.py $RUNGS --suite large --graphs delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| (pp|push|ad)' $R/large/table.md
