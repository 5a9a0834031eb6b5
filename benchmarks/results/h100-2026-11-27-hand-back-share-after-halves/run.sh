#!/bin/bash
# Probe again after the rows read by halves: the grid handing back at 6/8 and 8/8 of the single block's capacity.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/hb2; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/hb2.tgz hb2' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
mkdir -p .devrun && patch -s -o .devrun/ladder_handback2.py benchmarks/results/h100-2026-11-27-hand-back-share/ladder_handback.py benchmarks/results/h100-2026-11-27-hand-back-share-after-halves/ladder_handback2.diff
RUNGS='adaptive adaptive_hb4 adaptive_hb6 adaptive_hb8'
timeout 300 python3 .devrun/ladder_handback2.py $RUNGS --suite large --graphs road-NY,road-BAY,grid-1000x1000,grid-1500x1500,grid-2000x2000,road-like-1500,delaunay-20 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/tuning > $R/tuning.log 2>&1; echo tuning rc=$?
grep -hE '^###|^\| adap' $R/tuning.log
timeout 120 python3 .devrun/ladder_handback2.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE '^###|^\| adap' $R/fla.log
