#!/bin/bash
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
mkdir -p /tmp/o
run() { n=$1; shift; timeout 150 "$@" > /tmp/o/$n.log 2>&1; echo "== $n rc=$?"; grep -E 'ok|WRONG|diffs|choices|control' /tmp/o/$n.log | head -12; }
P="python3 .devrun/ncu_probe.py cuda"
N="ncu --clock-control none --section SourceCounters"
run a-1 $N --launch-count 1 -k regex:persistent_single $P adaptive road-NY 2
run a-nokeep $N --launch-count 3 -k regex:persistent_single $P adaptive road-NY 2 '{"keep_measures":false}'
run a-gridonly $N --launch-count 3 -k regex:persistent_single $P adaptive road-NY 2 '{"hand_back_after":1000000}'
run a-grid-d20 $N --launch-count 3 -k regex:persistent_single $P adaptive grid-1000x1000 2
tar czf $OUT/ncu5.tgz -C /tmp/o .
