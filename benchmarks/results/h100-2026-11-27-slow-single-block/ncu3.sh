#!/bin/bash
# Why does step 7's validation fail under ncu? Classify: serialization only, one pass, replays, step 5, the capacity hand-over.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
mkdir -p /tmp/o
run() { n=$1; shift; timeout 150 "$@" > /tmp/o/$n.log 2>&1; echo "== $n rc=$?"; grep -E 'ok|WRONG|passes|ERROR' /tmp/o/$n.log | head -8; }
P="python3 .devrun/ncu_probe.py cuda"
run plain $P adaptive road-NY 3
run nomatch ncu --clock-control none -k regex:nomatch $P adaptive road-NY 3
run single-1pass ncu --clock-control none -k regex:persistent_single --launch-count 3 --section LaunchStats $P adaptive road-NY 3
run grid-1pass ncu --clock-control none -k regex:push_pull_bfs --launch-count 3 --section LaunchStats $P adaptive road-NY 3
run single-replay ncu --clock-control none -k regex:persistent_single --launch-count 3 --section WarpStateStats $P adaptive road-NY 3
run single-replay-capacity ncu --clock-control none -k regex:persistent_single --launch-count 3 --section WarpStateStats $P adaptive road-NY 3 '{"handover":"capacity"}'
run step5-replay ncu --clock-control none -k regex:persistent_single --launch-count 3 --section WarpStateStats $P persistent road-NY 3
run flush-replay ncu --clock-control none -k regex:persistent_flush --launch-count 3 --section WarpStateStats $P adaptive road-NY 3
tar czf $OUT/ncu3.tgz -C /tmp/o .
