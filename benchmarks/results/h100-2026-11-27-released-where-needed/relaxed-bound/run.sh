#!/bin/bash
# Probes for Delaunay 2^22 (the crossing's release, a grid of fewer blocks, pulls after growth) and, with the code of this commit, road-FLA (held out) and Delaunay 2^24 (generated in the background meanwhile, then timed from its file).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/rx1; rm -rf $R; mkdir -p $R /tmp/gen
trap 'cd /tmp && tar czf $OUT/rx1.tgz rx1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
( /usr/bin/time -v python -m rodinia_bfs generate delaunay --scale 24 --seed 0 -o /tmp/gen/delaunay-24.npz > $R/generate-24.log 2>&1; echo "generate rc=$?" >> $R/generate-24.log ) &
GEN=$!
cp .devrun/rx_probe.py $R/
RUNGS='push_pull pp_relaxed {"variant":"push_pull","label":"pp-b132","max_blocks":132} {"variant":"push_pull","label":"pp-b198","max_blocks":198} {"variant":"push_pull","label":"pp-growth1","pull_growth":1} adaptive'
timeout 170 python3 .devrun/rx_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| " $R/large/table.md | grep -v "^| rung\|^|---"
timeout 110 python3 .devrun/rx_probe.py $RUNGS --suite standard --graphs kronecker-20,grid-1000x1000,road-NY,as-22july06 --sources 16 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE "^###|^\| " $R/standard/table.md | grep -v "^| rung\|^|---"
timeout 50 python3 benchmarks/ladder.py push_pull adaptive --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE "^###|^\| (push_pull|adaptive) " $R/fla/table.md
wait $GEN; tail -25 $R/generate-24.log | grep -E "Elapsed|Maximum resident|generate rc"
ls -la /tmp/gen
timeout 200 python3 benchmarks/ladder.py push_pull adaptive --files /tmp/gen/delaunay-24.npz --sources 8 --repeats 2 --backend cuda --data .devdata --out $R/delaunay-24 > $R/delaunay-24.log 2>&1; echo d24 rc=$?
grep -hE "^###|^\| (push_pull|adaptive) |levels" $R/delaunay-24/table.md
