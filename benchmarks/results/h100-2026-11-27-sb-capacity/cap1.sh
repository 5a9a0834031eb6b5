#!/bin/bash
# Probe: the single block's capacity (and edge limit) 3072 and 4096 entries against 2048, steps 5 and 7.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/cap1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/cap1.tgz cap1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
RUNGS='persistent {"variant":"persistent","label":"persistent-4096","sb_capacity":4096,"sb_edge_limit":32768} adaptive {"variant":"adaptive","label":"adaptive-3072","sb_capacity":3072,"sb_edge_limit":24576} {"variant":"adaptive","label":"adaptive-4096","sb_capacity":4096,"sb_edge_limit":32768}'
timeout 330 python3 .devrun/ladder_before.py $RUNGS --suite large --graphs grid-1000x1000,road-NY,road-BAY,grid-1500x1500,grid-2000x2000 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/tuning > $R/tuning.log 2>&1; echo tuning rc=$?
grep -hE '^###|^\| (pers|push|adap)' $R/tuning.log
timeout 150 python3 .devrun/ladder_before.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE '^###|^\| (pers|push|adap)' $R/fla.log
