#!/bin/bash
# Locality: steps 6 and 7 on Delaunay 2^20, 2^22 and 2^24 with the ids as generated and renumbered in breadth-first order (order_probe.py).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devvb RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/ord1; rm -rf $R; mkdir -p $R /tmp/gen
trap 'cd /tmp && tar czf $OUT/ord1.tgz ord1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
cp benchmarks/results/h100-2026-11-27-breadth-first-order/order_probe.py benchmarks/results/h100-2026-11-27-breadth-first-order/run.sh $R/
( python -m rodinia_bfs generate delaunay --scale 24 --seed 0 -o /tmp/gen/delaunay-24.npz > $R/generate-24.log 2>&1; echo "generate rc=$?" >> $R/generate-24.log ) &
GEN=$!
timeout 200 python3 benchmarks/results/h100-2026-11-27-breadth-first-order/order_probe.py large delaunay-20,delaunay-22 push_pull,adaptive 8 3 $R/large.json > $R/large.log 2>&1; echo large rc=$?; cat $R/large.log | tail -9
wait $GEN; tail -1 $R/generate-24.log
timeout 300 python3 benchmarks/results/h100-2026-11-27-breadth-first-order/order_probe.py file /tmp/gen/delaunay-24.npz push_pull,adaptive 8 2 $R/delaunay-24.json > $R/delaunay-24.log 2>&1; echo d24 rc=$?; tail -5 $R/delaunay-24.log
