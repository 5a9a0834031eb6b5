#!/bin/bash
# Nsight Compute on one search of step 6 on Delaunay 2^24 (generated here): warp states, memory, source counters.
export PYTHONPATH=$PWD RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/ncu24; rm -rf $R; mkdir -p $R /tmp/gen
trap 'cd /tmp && tar czf $OUT/ncu24.tgz ncu24' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
cp benchmarks/results/h100-2026-11-27-profile-delaunay-24-step6/ncu_file.py benchmarks/results/h100-2026-11-27-profile-delaunay-24-step6/run.sh $R/
python -m rodinia_bfs generate delaunay --scale 24 --seed 0 -o /tmp/gen/delaunay-24.npz > $R/generate-24.log 2>&1; echo "generate rc=$?"
timeout 280 ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section SourceCounters --launch-count 1 -k regex:push_pull_bfs -o $R/d24 python3 benchmarks/results/h100-2026-11-27-profile-delaunay-24-step6/ncu_file.py push_pull /tmp/gen/delaunay-24.npz > $R/ncu.log 2>&1; echo ncu rc=$?
tail -4 $R/ncu.log
ncu --import $R/d24.ncu-rep --page details > $R/details.txt 2>&1; echo details rc=$?
ncu --import $R/d24.ncu-rep --page source --print-source sass --csv 2>/dev/null | gzip > $R/sass.csv.gz; echo sass rc=$?
rm -f $R/d24.ncu-rep
grep -iE "throughput|stall|warp cycles|issued|hit rate|Eligible|Active Warps" $R/details.txt | head -40
