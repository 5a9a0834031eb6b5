#!/bin/bash
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/lo1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/lo1.tgz lo1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
timeout 250 python3 benchmarks/results/h100-2026-11-27-row-halves/probe/width_probe.py standard grid-1000x1000 persistent:0:0,persistent:8:0,persistent:8:1,persistent:8:1:SB_ROW_PROBE_LOWER,adaptive:0:0,adaptive:8:1,adaptive:8:1:SB_ROW_PROBE_LOWER 8 3 $R/grid.json > $R/grid.log 2>&1; echo grid rc=$?
grep '^|' $R/grid.log
