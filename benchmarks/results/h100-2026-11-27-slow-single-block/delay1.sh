#!/bin/bash
export PYTHONPATH=$PWD RODINIA_BFS_DATA=$PWD/.devdata RODINIA_BFS_CACHE=/tmp/rbc
for g in grid-1000x1000 road-NY; do for d in 0 3000 20000 100000; do
  timeout 120 python3 .devrun/delay_probe.py cuda $g $d 2 2>&1 | grep -E 'ok|WRONG|Error|error' | cut -c1-400
done; done
timeout 120 python3 .devrun/delay_probe.py cuda road-NY 20000 2 '{"handover":"capacity"}' 2>&1 | grep -E 'ok|WRONG|rror' | cut -c1-300
