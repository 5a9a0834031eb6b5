#!/bin/bash
# Run from the repository root at commit 4ce3f32 (.devdata: a copy of ../shared/data); results under $OUT.
# Probe, second call: the counting crossing with entries written after the arrival beside steps 6 (auto and push) and 7, on Delaunay 2^22, road-NY, the grid and road-FLA (held out).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
F=benchmarks/results/h100-2026-11-27-counting-crossing
mkdir -p .devrun/cb && cp $F/cb_probe.py .devrun/ && cp hip_kernels/push_pull_grid.h .devrun/cb/ && patch -s .devrun/cb/push_pull_grid.h $F/counting-crossing.diff
R=/tmp/cb2; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/cb2.tgz cb2' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='push_pull {"variant":"push_pull","label":"push","direction":"push","max_blocks":264} {"variant":"push_pull_cbw","label":"counting-after","direction":"push","max_blocks":264} adaptive'
timeout 120 python3 .devrun/cb_probe.py $RUNGS --suite large --graphs delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| (push|count|adap)' $R/large/table.md
timeout 100 python3 .devrun/cb_probe.py $RUNGS --suite standard --graphs road-NY,grid-1000x1000 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE '^###|^\| (push|count|adap)' $R/standard/table.md
timeout 80 python3 .devrun/cb_probe.py $RUNGS --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE '^###|^\| (push|count|adap)' $R/fla/table.md
