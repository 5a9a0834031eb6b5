#!/bin/bash
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/hv1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/hv1.tgz hv1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
P=benchmarks/results/h100-2026-11-27-row-halves/probe/width_probe.py
timeout 170 python3 $P standard road-NY,road-BAY persistent:0:0,persistent:0:1,adaptive:0:0,adaptive:0:1 16 3 $R/roads.json > $R/roads.log 2>&1; echo roads rc=$?
grep '^|' $R/roads.log
timeout 150 python3 $P standard grid-1000x1000 persistent:0:0,persistent:8:0,persistent:8:1,adaptive:0:0,adaptive:0:1,adaptive:8:0,adaptive:8:1 8 3 $R/grid.json > $R/grid.log 2>&1; echo grid rc=$?
grep '^|' $R/grid.log
timeout 120 python3 $P large road-FLA persistent:0:0,persistent:0:1,adaptive:0:0,adaptive:0:1 8 3 $R/fla.json > $R/fla.log 2>&1; echo fla rc=$?
grep '^|' $R/fla.log
