# no retry needed
