#!/bin/bash
# From the repository root, on an NVIDIA GPU of compute capability 9.0: one crossing with grid_sync, 8 split words, and
# clusters of 2 and 4 blocks whose first block alone crosses the grid's word. (The call ran it with 200 s to spare: the
# whole cooperative grid's shape, last, does not finish; see README.md.)
export PYTHONPATH=$PWD
D=benchmarks/results/h100-2026-11-27-split-barrier/cluster
timeout 200 python $D/probe/split_probe.py cuda 10000 5 $D/cluster.json 2>&1 | tee $D/cluster.log
