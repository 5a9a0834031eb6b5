#!/bin/bash
# Run from the repository root (.devdata: a copy of ../shared/data); results under $OUT.
# Probe: the claimed vertex's degree read after its claim (DEGREE_AFTER_CLAIM), steps 6 and 7; a check before the claim; ncu of step 6 on Delaunay 2^22.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
F=benchmarks/results/h100-2026-11-27-mesh-degree-loads
mkdir -p .devrun && cp $F/degree_probe.py .devrun/degree_probe.py && cp benchmarks/results/h100-2026-11-27-slow-single-block/ncu_probe.py .devrun/
R=/tmp/dac2; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/dac2.tgz dac2' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='push_pull push_pull_dac {"variant":"push_pull","label":"check-first","check_before_claim":true} adaptive adaptive_dac'
timeout 200 python3 .devrun/degree_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| (push|adap|check)' $R/large/table.md
timeout 100 python3 .devrun/degree_probe.py $RUNGS --suite standard --graphs road-NY,grid-1000x1000,kronecker-20 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE '^###|^\| (push|adap|check)' $R/standard/table.md
timeout 200 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section SourceCounters --section LaunchStats --section Occupancy --launch-count 1 -k regex:push_pull_bfs -o $R/d22 python3 .devrun/ncu_probe.py cuda push_pull delaunay-22 1 > $R/ncu.log 2>&1; echo ncu rc=$?
tail -3 $R/ncu.log
ncu --import $R/d22.ncu-rep --page details > $R/details.txt 2>&1
ncu --import $R/d22.ncu-rep --page source --print-source sass --csv > $R/sass.csv 2>&1
grep -iE "throughput|hit rate|stall|warp cycles|issued|Duration|Registers|Achieved" $R/details.txt | head -60
