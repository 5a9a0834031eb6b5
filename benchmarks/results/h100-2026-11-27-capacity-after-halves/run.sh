#!/bin/bash
# Probe: the single block with 4,096 entries, now that rows are read by halves.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/cap3; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/cap3.tgz cap3' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
RUNGS='persistent {"variant":"persistent","label":"persistent-4096","sb_capacity":4096,"sb_edge_limit":32768} adaptive {"variant":"adaptive","label":"adaptive-4096","sb_capacity":4096,"sb_edge_limit":32768}'
timeout 250 python3 benchmarks/results/h100-2026-11-27-capacity-after-halves/ladder_grids.py $RUNGS --suite large --graphs road-NY,road-BAY,grid-1500x1500,grid-2000x2000,road-like-1500 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/tuning > $R/tuning.log 2>&1; echo tuning rc=$?
grep -hE '^###|^\| (pers|adap)' $R/tuning.log
timeout 120 python3 benchmarks/ladder.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE '^###|^\| (pers|adap)' $R/fla.log
