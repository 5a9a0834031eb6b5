#!/bin/bash
# Run from the repository root (.devdata: a copy of ../shared/data); results under $OUT.
# Probe: the cost of reading each target's degree (NO_DEGREE: no load, every vertex taken as small), steps 6 and 7 on the Delaunay meshes; level profiles on 2^24.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
F=benchmarks/results/h100-2026-11-27-mesh-degree-loads
mkdir -p .devrun && cp $F/degree_probe.py .devrun/degree_probe.py
cp .devrun/degree_probe.py .devrun/nodeg_probe.py && patch -s .devrun/nodeg_probe.py $F/no-degree/nodeg_probe.diff
R=/tmp/nd1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/nd1.tgz nd1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='push_pull push_pull_nodeg adaptive adaptive_nodeg'
timeout 150 python3 .devrun/nodeg_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| (push|adap)' $R/large/table.md
timeout 300 python3 .devrun/nodeg_probe.py $RUNGS --suite large --graphs delaunay-24 --sources 8 --repeats 2 --backend cuda --data .devdata --out $R/d24 > $R/d24.log 2>&1; echo d24 rc=$?
grep -hE '^###|^\| (push|adap)' $R/d24/table.md
timeout 120 python3 .devrun/nodeg_probe.py --profile adaptive adaptive_nodeg --suite large --graphs delaunay-24 --sources 2 --backend cuda --data .devdata --no-plots --out $R/profile > $R/profile.log 2>&1; echo profile rc=$?
grep -E "^\| adap" $R/profile/table.md
