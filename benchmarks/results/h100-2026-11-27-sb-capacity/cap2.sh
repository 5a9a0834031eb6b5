#!/bin/bash
# The shared-memory opt-in fix on the GPU (the two new tests, then the same with the fix undone: they must fail),
# and the capacity probe on the 1500 x 1500 and 2000 x 2000 grids that the bug stopped.
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
R=/tmp/cap2; rm -rf $R; mkdir -p $R
trap 'cd /tmp && tar czf $OUT/cap2.tgz cap2' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $R/device.txt
T="tests/test_gpu_backends.py::test_static_and_dynamic_shared_memory_past_the_default tests/test_step5_persistent.py::test_gpu_large_queues_with_the_bitmap_in_global_memory"
timeout 120 python3 -m pytest -q -p no:cacheprovider $T > $R/tests-fixed.log 2>&1; echo fixed rc=$?; tail -1 $R/tests-fixed.log
cp rodinia_bfs/runtime/_gpu.py /tmp/_gpu.py.fixed
python3 - <<'PY'
p='rodinia_bfs/runtime/_gpu.py'; s=open(p).read()
s=s.replace("        if shared_mem <= 0:\n            return\n", "        if shared_mem <= self.shared_memory_per_block:\n            return\n", 1); open(p,'w').write(s)
PY
timeout 120 python3 -m pytest -q -p no:cacheprovider $T > $R/tests-undone.log 2>&1; echo undone rc=$?; grep -E 'passed|failed|INVALID' $R/tests-undone.log | head -4
cp /tmp/_gpu.py.fixed rodinia_bfs/runtime/_gpu.py
RUNGS='persistent {"variant":"persistent","label":"persistent-4096","sb_capacity":4096,"sb_edge_limit":32768} adaptive {"variant":"adaptive","label":"adaptive-3072","sb_capacity":3072,"sb_edge_limit":24576} {"variant":"adaptive","label":"adaptive-4096","sb_capacity":4096,"sb_edge_limit":32768}'
timeout 300 python3 .devrun/ladder_before.py $RUNGS --suite large --graphs grid-1500x1500,grid-2000x2000 --sources 8 --repeats 3 --backend cuda --data .devdata --out $R/grids > $R/grids.log 2>&1; echo grids rc=$?
grep -hE '^###|^\| (pers|push|adap)' $R/grids.log; tail -2 $R/grids.log
