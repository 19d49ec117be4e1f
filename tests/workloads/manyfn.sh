#!/bin/sh
# manyfn.sh OUT - build OUT, a program with 20,000 functions (4 bytes of
# .text each, from assembler: seconds less to build than as C) whose main
# burns its first argument's milliseconds (100 by default) in churn_spin;
# one of them is named many_id_AAAAAAAA, for copies that differ in one
# symbol's name (overwrite the 8 bytes after it). Used by hostile.sh's
# churn test and bench/memchurn.sh.
set -eu
awk 'BEGIN {
	print "#include <stdlib.h>\n#include <time.h>\n__asm__(\".text\\n\""
	print "\".globl many_id_AAAAAAAA\\n.type many_id_AAAAAAAA, %function\\nmany_id_AAAAAAAA: .skip 4\\n.size many_id_AAAAAAAA, 4\\n\""
	for (i = 0; i < 20000; i++)
		printf "\".globl many_%05d\\n.type many_%05d, %%function\\nmany_%05d: .skip 4\\n.size many_%05d, 4\\n\"\n", i, i, i, i
	print ");"
	print "static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }"
	print "__attribute__((noinline)) static unsigned churn_spin(double until) { unsigned v = 1; while (now() < until) for (int i = 0; i < 100000; i++) v = v * 31 + i; return v; }"
	print "int main(int argc, char **argv) { return churn_spin(now() + (argc > 1 ? atof(argv[1]) : 100) / 1000) == 42; }"
}' > "$1.c"
cc -O1 -fno-omit-frame-pointer -o "$1" "$1.c"
