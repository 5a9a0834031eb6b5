#!/bin/bash
# Kept frontiers with at most 16, 64 or 256 vertices a block (the rest spilled to the global queue) beside the given and
# built frontiers and steps 6 and 7: GPU test, memcheck, road-NY and the grid, Delaunay 2^20, 2^22 (generated here),
# road-FLA (held out).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devvb RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/gk2; rm -rf $R; mkdir -p $R /tmp/gen
save() { (cd /tmp && tar czf $OUT/gk2.tgz gk2); }
trap save EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
cp "$0" $R/run.sh
( python -m rodinia_bfs generate delaunay --scale 22 --seed 0 -o /tmp/gen/delaunay-22.npz > $R/generate-22.log 2>&1; echo "generate rc=$?" >> $R/generate-22.log ) &
GEN=$!
timeout 60 python -m pytest -q -m gpu -p no:cacheprovider -p no:xdist -o addopts="" tests/test_given_frontiers.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 90 $CS --tool memcheck python benchmarks/given_frontiers.py --kept 16 --backend cuda --suite standard --graphs road-NY --sources 2 --repeats 1 --steps '' --data .devvb --out $R/memcheck-run > $R/memcheck.log 2>&1
echo "memcheck rc $? $(grep -h 'SUMMARY' $R/memcheck.log)" | tee -a $R/sanitizer-summary.txt
save
show() { grep -hE "^###|^\| |barriers alone|^Kept" $1/table.md | grep -v "^| rung\|^|---"; }
K=16,64,256
timeout 120 python benchmarks/given_frontiers.py --kept $K --suite standard --graphs road-NY,grid-1000x1000 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?; show $R/standard; save
timeout 100 python benchmarks/given_frontiers.py --kept $K --suite large --graphs delaunay-20 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/delaunay-20 > $R/delaunay-20.log 2>&1; echo d20 rc=$?; show $R/delaunay-20; save
while [ ! -s /tmp/gen/delaunay-22.npz ] && kill -0 $GEN 2>/dev/null; do sleep 2; done; tail -1 $R/generate-22.log
timeout 120 python benchmarks/given_frontiers.py --kept $K --files /tmp/gen/delaunay-22.npz --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/delaunay-22 > $R/delaunay-22.log 2>&1; echo d22 rc=$?; show $R/delaunay-22; save
timeout 80 python benchmarks/given_frontiers.py --kept $K --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?; show $R/fla; save
