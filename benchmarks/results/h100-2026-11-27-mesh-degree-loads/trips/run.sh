#!/bin/bash
# Run from the repository root (.devdata: a copy of ../shared/data); results under $OUT.
# Probe: what one more trip to the L2 costs on a top-down level's chain (step 6, the Delaunay meshes).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
mkdir -p .devrun && cp benchmarks/results/h100-2026-11-27-mesh-degree-loads/trips/trip_probe.py .devrun/
R=/tmp/trip1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/trip1.tgz trip1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='push_pull push_pull_trip_list push_pull_trip_reserve {"variant":"push_pull","label":"push_pull-again"}'
timeout 130 python3 .devrun/trip_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| push' $R/large/table.md
timeout 330 python3 .devrun/trip_probe.py $RUNGS --suite large --graphs delaunay-24 --sources 8 --repeats 2 --backend cuda --data .devdata --out $R/d24 > $R/d24.log 2>&1; echo d24 rc=$?
grep -hE '^###|^\| push' $R/d24/table.md
