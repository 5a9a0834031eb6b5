#!/bin/bash
# Step 7 under ncu's SourceCounters (instrumented SASS): which steps and options fail validation?
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
mkdir -p /tmp/o
run() { n=$1; shift; timeout 150 "$@" > /tmp/o/$n.log 2>&1; echo "== $n rc=$?"; grep -E 'ok|WRONG|passes|ERROR' /tmp/o/$n.log | head -8; }
P="python3 .devrun/ncu_probe.py cuda"
N="ncu --clock-control none --launch-count 3 --section SourceCounters"
run a-single $N -k regex:persistent_single $P adaptive road-NY 3
run a-single-cap $N -k regex:persistent_single $P adaptive road-NY 3 '{"handover":"capacity"}'
run p-single $N -k regex:persistent_single $P persistent road-NY 3
run a-flush $N -k regex:persistent_flush $P adaptive road-NY 3
run a-grid $N -k regex:push_pull_bfs $P adaptive road-NY 3
run p-single-nolog $N -k regex:persistent_single $P persistent road-NY 3 '{"log":false}'
tar czf $OUT/ncu4.tgz -C /tmp/o .
