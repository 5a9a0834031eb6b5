#!/bin/bash
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/wd1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/wd1.tgz wd1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
timeout 200 python3 benchmarks/results/h100-2026-11-27-row-halves/probe/width_probe.py standard grid-1000x1000 persistent:0,persistent:8,persistent:16,adaptive:0,adaptive:8,adaptive:16 8 3 $R/grid.json > $R/grid.log 2>&1; echo grid rc=$?
cat $R/grid.log
timeout 150 python3 benchmarks/results/h100-2026-11-27-row-halves/probe/width_probe.py standard road-NY,road-BAY persistent:0,persistent:16,adaptive:0,adaptive:16 8 3 $R/roads.json > $R/roads.log 2>&1; echo roads rc=$?
cat $R/roads.log
