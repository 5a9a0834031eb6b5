# the example graph
0 1
0 2
1 3
2 3
