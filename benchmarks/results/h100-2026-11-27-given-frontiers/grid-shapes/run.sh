#!/bin/bash
# Given and built frontiers on Delaunay 2^22 (generated here) with step 6 in turns: the probes on 132 blocks of 1024
# threads, then on step 6's grid (264 blocks of 512), one after the other.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devvb RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/gf4; rm -rf $R; mkdir -p $R /tmp/gen
trap 'cd /tmp && tar czf $OUT/gf4.tgz gf4' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
cp "$0" $R/run.sh
python -m rodinia_bfs generate delaunay --scale 22 --seed 0 -o /tmp/gen/delaunay-22.npz > $R/generate-22.log 2>&1; echo "generate rc=$?" >> $R/generate-22.log
show() { grep -hE "^###|^\| |^Given" $1/table.md | grep -v "^| rung\|^|---"; }
timeout 60 python benchmarks/given_frontiers.py --files /tmp/gen/delaunay-22.npz --steps push_pull --blocks 132 --block-size 1024 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/blocks-132x1024 > $R/blocks-132x1024.log 2>&1; echo "132x1024 rc=$?"; show $R/blocks-132x1024
timeout 60 python benchmarks/given_frontiers.py --files /tmp/gen/delaunay-22.npz --steps push_pull --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/blocks-264x512 > $R/blocks-264x512.log 2>&1; echo "264x512 rc=$?"; show $R/blocks-264x512
