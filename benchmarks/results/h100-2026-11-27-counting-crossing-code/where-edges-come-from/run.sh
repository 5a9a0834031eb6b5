#!/bin/bash
# Probe: where the counting crossing's edges (m_f) come from: the edge word polled by thread 0 (e0, the code), the tally read after the poll (e1), a second poller (e2), none (e3, push only: a bound). Road-NY and Delaunay 2^22.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/cx1; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/cx1.tgz cx1' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt; git status --short > $R/status.txt
RUNGS='{"variant":"push_pull","label":"pp-old","counting_crossing":false,"write_after_arrival":false} push_pull pp_e0 pp_e1 pp_e2 {"variant":"push_pull","label":"pp-push","direction":"push"} {"variant":"pp_e3","label":"e3-push","direction":"push"} {"variant":"pp_e1","label":"e1-push","direction":"push"}'
timeout 100 python3 .devrun/cx_probe.py $RUNGS --suite standard --graphs road-NY --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/standard > $R/standard.log 2>&1; echo standard rc=$?
grep -hE '^###|^\| (pp|push|e[0-9])' $R/standard/table.md
timeout 200 python3 .devrun/cx_probe.py $RUNGS --suite large --graphs delaunay-22 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/large > $R/large.log 2>&1; echo large rc=$?
grep -hE '^###|^\| (pp|push|e[0-9])' $R/large/table.md
