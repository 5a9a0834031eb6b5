import sys

from rodinia_bfs.cli import main

sys.exit(main())
