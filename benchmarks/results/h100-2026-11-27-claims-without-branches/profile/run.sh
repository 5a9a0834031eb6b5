#!/bin/bash
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/ncu6; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/ncu6.tgz ncu6' EXIT
P="python3 benchmarks/results/h100-2026-11-27-slow-single-block/ncu_probe.py cuda"
timeout 200 ncu --clock-control none --section SourceCounters --section WarpStateStats --section InstructionStats --section LaunchStats --launch-count 1 -k regex:persistent_single -o $R/ny $P persistent road-NY 1 > $R/ny.log 2>&1; echo ncu rc=$?
tail -3 $R/ny.log
ncu --import $R/ny.ncu-rep --page details > $R/details.txt 2>&1; echo details rc=$?
ncu --import $R/ny.ncu-rep --page source --print-source sass --csv > $R/sass.csv 2>&1; echo sass rc=$?
wc -l $R/*.txt $R/*.csv
grep -iE "warp cycles per issued|issued ipc|executed ipc|stall|Instructions" $R/details.txt | head -40
