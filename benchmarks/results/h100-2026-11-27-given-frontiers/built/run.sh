#!/bin/bash
# Given and built frontiers (benchmarks/given_frontiers.py): GPU tests, memcheck/racecheck, then both beside steps 6 and 7
# on road-NY, the grid, road-FLA (held out), Delaunay 2^20 and 2^22 (generated here).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devvb RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/gf3; rm -rf $R; mkdir -p $R /tmp/gen
trap 'cd /tmp && tar czf $OUT/gf3.tgz gf3' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
cp "$0" $R/run.sh
( python -m rodinia_bfs generate delaunay --scale 22 --seed 0 -o /tmp/gen/delaunay-22.npz > $R/generate-22.log 2>&1; echo "generate rc=$?" >> $R/generate-22.log ) &
GEN=$!
timeout 60 python -m pytest -q -m gpu -p no:cacheprovider -p no:xdist -o addopts="" tests/test_given_frontiers.py tests/test_bitmap_frontiers.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 60 $CS --tool memcheck python benchmarks/given_frontiers.py --backend cuda --suite standard --graphs road-NY --sources 2 --repeats 1 --steps push_pull --data .devvb --out $R/memcheck-run > $R/memcheck.log 2>&1
echo "memcheck rc $? $(grep -h 'SUMMARY' $R/memcheck.log)" | tee -a $R/sanitizer-summary.txt
timeout 60 $CS --tool racecheck python benchmarks/given_frontiers.py --backend cuda --files tests/data/example.gr --sources 2 --repeats 1 --steps '' --data .devvb --out $R/racecheck-run > $R/racecheck.log 2>&1
echo "racecheck rc $? $(grep -h 'SUMMARY' $R/racecheck.log)" | tee -a $R/sanitizer-summary.txt
show() { grep -hE "^###|^\| " $1/table.md | grep -v "^| rung\|^|---"; }
timeout 60 python benchmarks/given_frontiers.py --suite standard --graphs road-NY,grid-1000x1000 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?; show $R/standard
timeout 30 python benchmarks/given_frontiers.py --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?; show $R/fla
timeout 60 python benchmarks/given_frontiers.py --suite large --graphs delaunay-20 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/delaunay-20 > $R/delaunay-20.log 2>&1; echo d20 rc=$?; show $R/delaunay-20
wait $GEN; tail -1 $R/generate-22.log
timeout 90 python benchmarks/given_frontiers.py --files /tmp/gen/delaunay-22.npz --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/delaunay-22 > $R/delaunay-22.log 2>&1; echo d22 rc=$?; show $R/delaunay-22
