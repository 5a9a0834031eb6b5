#!/bin/bash
# Kept frontiers beside the given and built ones and steps 6 and 7 (benchmarks/given_frontiers.py): GPU test, memcheck,
# road-NY and the grid, Delaunay 2^20, road-FLA (held out), Delaunay 2^22 and 2^24 (generated here).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devvb RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/gk1; rm -rf $R; mkdir -p $R /tmp/gen
save() { (cd /tmp && tar czf $OUT/gk1.tgz gk1); }
trap save EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
cp "$0" $R/run.sh
( for k in 22 24; do python -m rodinia_bfs generate delaunay --scale $k --seed 0 -o /tmp/gen/delaunay-$k.npz > $R/generate-$k.log 2>&1; echo "generate rc=$?" >> $R/generate-$k.log; done ) &
GEN=$!
timeout 60 python -m pytest -q -m gpu -p no:cacheprovider -p no:xdist -o addopts="" tests/test_given_frontiers.py > $R/gpu-tests.log 2>&1; echo "gpu tests rc=$? $(tail -1 $R/gpu-tests.log)"
save
CS=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
timeout 90 $CS --tool memcheck python benchmarks/given_frontiers.py --kept 2048 --backend cuda --suite standard --graphs road-NY --sources 2 --repeats 1 --steps '' --data .devvb --out $R/memcheck-run > $R/memcheck.log 2>&1
save
echo "memcheck rc $? $(grep -h 'SUMMARY' $R/memcheck.log)" | tee -a $R/sanitizer-summary.txt
save
show() { grep -hE "^###|^\| |barriers alone|^Kept" $1/table.md | grep -v "^| rung\|^|---"; }
timeout 100 python benchmarks/given_frontiers.py --kept 2048 --suite standard --graphs road-NY,grid-1000x1000 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?; show $R/standard
save
timeout 100 python benchmarks/given_frontiers.py --kept 2048 --suite large --graphs delaunay-20 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/delaunay-20 > $R/delaunay-20.log 2>&1; echo d20 rc=$?; show $R/delaunay-20
save
while [ ! -s /tmp/gen/delaunay-22.npz ] && kill -0 $GEN 2>/dev/null; do sleep 2; done; tail -1 $R/generate-22.log
timeout 100 python benchmarks/given_frontiers.py --kept 2048 --files /tmp/gen/delaunay-22.npz --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/delaunay-22 > $R/delaunay-22.log 2>&1; echo d22 rc=$?; show $R/delaunay-22
save
timeout 60 python benchmarks/given_frontiers.py --kept 2048 --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?; show $R/fla
save
wait $GEN; tail -1 $R/generate-24.log
timeout 200 python benchmarks/given_frontiers.py --kept 2048 --files /tmp/gen/delaunay-24.npz --sources 8 --repeats 2 --backend cuda --data .devvb --out $R/delaunay-24 > $R/delaunay-24.log 2>&1; echo d24 rc=$?; show $R/delaunay-24
save
