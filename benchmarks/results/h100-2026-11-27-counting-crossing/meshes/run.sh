#!/bin/bash
# Run from the repository root at commit 4ce3f32 (.devdata: a copy of ../shared/data); results under $OUT.
# Probe: the next queue's length carried by the barrier's arrival (COUNTING_BARRIER), and entries written after the arrival (WRITE_AFTER_ARRIVAL): step 6 top-down on the Delaunay meshes.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
F=benchmarks/results/h100-2026-11-27-counting-crossing
mkdir -p .devrun/cb && cp $F/cb_probe.py .devrun/ && cp hip_kernels/push_pull_grid.h .devrun/cb/ && patch -s .devrun/cb/push_pull_grid.h $F/counting-crossing.diff
R=/tmp/cb1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/cb1.tgz cb1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='{"variant":"push_pull","label":"push","direction":"push","max_blocks":264} {"variant":"push_pull_cb","label":"counting","direction":"push","max_blocks":264} {"variant":"push_pull_cbw","label":"counting-after","direction":"push","max_blocks":264} {"variant":"push_pull","label":"push-again","direction":"push","max_blocks":264}'
timeout 90 python3 .devrun/cb_probe.py $RUNGS --suite large --graphs delaunay-20 --sources 2 --repeats 1 --backend cuda --data .devdata --out $R/check > $R/check.log 2>&1; rc=$?; echo check rc=$rc
tail -12 $R/check.log
[ $rc -eq 0 ] || exit 1
timeout 150 python3 .devrun/cb_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| (push|count)' $R/large/table.md
timeout 300 python3 .devrun/cb_probe.py $RUNGS --suite large --graphs delaunay-24 --sources 8 --repeats 2 --backend cuda --data .devdata --out $R/d24 > $R/d24.log 2>&1; echo d24 rc=$?
grep -hE '^###|^\| (push|count)' $R/d24/table.md
