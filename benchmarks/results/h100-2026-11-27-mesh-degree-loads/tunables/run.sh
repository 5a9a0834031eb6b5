#!/bin/bash
# Run from the repository root (.devdata: a copy of ../shared/data); results under $OUT.
# Probe: step 6's top-down tunables on the widest mesh (Delaunay 2^24) and 2^22: a batch of 2 edges, blocks of 256 and 1024, a check before the claim.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
F=benchmarks/results/h100-2026-11-27-mesh-degree-loads
mkdir -p .devrun && cp $F/degree_probe.py .devrun/degree_probe.py
R=/tmp/t24; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/t24.tgz t24' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='push_pull {"variant":"push_pull","label":"batch-2","visit_batch":2} {"variant":"push_pull","label":"blocks-1024","block_size":1024} {"variant":"push_pull","label":"blocks-256","block_size":256} {"variant":"push_pull","label":"check-first","check_before_claim":true}'
timeout 100 python3 benchmarks/ladder.py $RUNGS --suite large --graphs delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/d22 > $R/d22.log 2>&1; echo d22 rc=$?
grep -hE '^###|^\| (push|batch|blocks|check)' $R/d22/table.md
timeout 400 python3 benchmarks/ladder.py $RUNGS --suite large --graphs delaunay-24 --sources 8 --repeats 2 --backend cuda --data .devdata --out $R/d24 > $R/d24.log 2>&1; echo d24 rc=$?
grep -hE '^###|^\| (push|batch|blocks|check)' $R/d24/table.md
