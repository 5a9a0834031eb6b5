#!/bin/bash
# From the repository root, on a machine with an NVIDIA GPU (the probe's barriers are written for NVIDIA's PTX and the
# emulator): one crossing with grid_sync, with split arrival words and with release flags, alone and after stores.
export PYTHONPATH=$PWD
D=benchmarks/results/h100-2026-11-27-split-barrier
python $D/probe/split_probe.py cuda 10000 5 $D/split.json 2>&1 | tee $D/split.log
