#!/bin/bash
# ncu profiles of the single block (step 7) on road-NY, road-BAY and the grid, and of step 6's grid on Delaunay 2^20
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/device.txt
git rev-parse HEAD > $OUT/commit.txt
S="--section SchedulerStats --section WarpStateStats --section InstructionStats --section LaunchStats --section MemoryWorkloadAnalysis --section SourceCounters --section ComputeWorkloadAnalysis"
prof() {  # name kernel step graph sources
  timeout 200 ncu --clock-control none -k regex:$2 --launch-count 6 $S -f -o $OUT/$1 python3 .devrun/ncu_probe.py cuda $3 $4 $5 > $OUT/$1.log 2>&1
  echo "$1 rc=$?"
  ncu --import $OUT/$1.ncu-rep --page details > $OUT/$1-details.txt 2>&1
  ncu --import $OUT/$1.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $OUT/$1-sass.csv.gz
  ncu --import $OUT/$1.ncu-rep --page raw --csv 2>/dev/null | gzip > $OUT/$1-raw.csv.gz
}
prof ny-single persistent_single adaptive road-NY 2
prof grid-single persistent_single adaptive grid-1000x1000 2
prof d20-grid push_pull_bfs push_pull delaunay-20 2
ls -la $OUT
