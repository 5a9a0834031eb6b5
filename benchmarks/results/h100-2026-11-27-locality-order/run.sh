#!/bin/bash
# Probe: locality order (RCM) of the ids, steps 5-7 on the tuning graphs, FLA held out.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/ro1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/ro1.tgz ro1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
S=persistent,push_pull,adaptive
timeout 250 python3 benchmarks/results/h100-2026-11-27-locality-order/reorder_probe.py standard road-NY,road-BAY,grid-1000x1000 $S 8 3 $R/standard.json > $R/standard.log 2>&1; echo std rc=$?
cat $R/standard.log
timeout 200 python3 benchmarks/results/h100-2026-11-27-locality-order/reorder_probe.py large delaunay-20,delaunay-22 $S 8 3 $R/large.json > $R/large.log 2>&1; echo large rc=$?
cat $R/large.log
timeout 100 python3 benchmarks/results/h100-2026-11-27-locality-order/reorder_probe.py large road-FLA $S 8 3 $R/fla.json > $R/fla.log 2>&1; echo fla rc=$?
cat $R/fla.log
