#!/bin/bash
# Probe: every row entry's claim an atomic (padding ORs 0 into a spare word), no branch per entry.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/ev1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/ev1.tgz ev1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
P=benchmarks/results/h100-2026-11-27-row-halves/probe/width_probe.py
E=SB_PROBE_EVERY_ENTRY
timeout 150 python3 $P standard road-NY,road-BAY persistent:0:1,persistent:0:1:$E,adaptive:0:1,adaptive:0:1:$E 16 3 $R/roads.json > $R/roads.log 2>&1; echo roads rc=$?
grep '^|' $R/roads.log
timeout 150 python3 $P standard grid-1000x1000 persistent:0:0,persistent:0:0:$E,adaptive:0:0,adaptive:0:0:$E 8 3 $R/grid.json > $R/grid.log 2>&1; echo grid rc=$?
grep '^|' $R/grid.log
timeout 120 python3 $P large road-FLA persistent:0:1,persistent:0:1:$E,adaptive:0:1,adaptive:0:1:$E 8 3 $R/fla.json > $R/fla.log 2>&1; echo fla rc=$?
grep '^|' $R/fla.log
