#!/bin/bash
# Claims of a thread's batch of edges sent together (top_down.h's visit_batch): visit_batch 2
# against 1 and against the batch's claims one after another (vb_probe.py): Delaunay 2^20/2^22,
# road-FLA (held out), roads, grid, Kronecker-20, as-22july06, and Delaunay 2^24 (generated
# in the background meanwhile). The probe is this folder's vb_probe.py (the call ran a copy of it from .devrun).
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devvb RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/vb1; rm -rf $R; mkdir -p $R /tmp/gen
trap 'cd /tmp && tar czf $OUT/vb1.tgz vb1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt; git log -1 --format=%H > $R/commit.txt
git diff > $R/tree.diff; cp benchmarks/results/h100-2026-11-27-claims-together/vb_probe.py benchmarks/results/h100-2026-11-27-claims-together/run.sh $R/
( python -m rodinia_bfs generate delaunay --scale 24 --seed 0 -o /tmp/gen/delaunay-24.npz > $R/generate-24.log 2>&1; echo "generate rc=$?" >> $R/generate-24.log ) &
GEN=$!
RUNGS='push_pull pp_b2 pp_b2seq adaptive ad_b2'
timeout 150 python3 benchmarks/results/h100-2026-11-27-claims-together/vb_probe.py $RUNGS --suite large --graphs delaunay-20,delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE "^###|^\| " $R/large/table.md | grep -v "^| rung\|^|---"
timeout 60 python3 benchmarks/results/h100-2026-11-27-claims-together/vb_probe.py push_pull pp_b2 adaptive ad_b2 --suite large --graphs road-FLA --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/fla > $R/fla.log 2>&1; echo fla rc=$?
grep -hE "^###|^\| " $R/fla/table.md | grep -v "^| rung\|^|---"
timeout 130 python3 benchmarks/results/h100-2026-11-27-claims-together/vb_probe.py push_pull pp_b2 adaptive ad_b2 --suite standard --graphs kronecker-20,grid-1000x1000,road-NY,road-BAY,as-22july06 --sources 8 --repeats 3 --backend cuda --data .devvb --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE "^###|^\| " $R/standard/table.md | grep -v "^| rung\|^|---"
wait $GEN; grep -E "generate rc" $R/generate-24.log
timeout 170 python3 benchmarks/results/h100-2026-11-27-claims-together/vb_probe.py $RUNGS --files /tmp/gen/delaunay-24.npz --sources 8 --repeats 2 --backend cuda --data .devvb --out $R/delaunay-24 > $R/delaunay-24.log 2>&1; echo d24 rc=$?
grep -hE "^###|^\| " $R/delaunay-24/table.md | grep -v "^| rung\|^|---"
