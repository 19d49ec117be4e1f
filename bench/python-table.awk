# python-table.awk - bench/python.sh's runs, one line each
# "rep profiler ok run_ns runs cpu_s rss_kb our_samples python_samples
# frames all_samples" (python_samples "-": not counted; # a comment),
# -> one markdown table, a row per profiler (in the order of the variable
# order), each cell the median [min-max] over the repetitions; the ratio
# to bpftrace is taken within each repetition. A failed run (ok 0) gives
# no values. Cells: cells.awk.
$1 !~ /^#/ && $3 == 1 && $5 > 0 {
	ns[$1, $2] = $4 / $5
	add($2 SUBSEP "ns", $4 / $5)
	add($2 SUBSEP "runs", $5)
	add($2 SUBSEP "cpu", $6)
	add($2 SUBSEP "rss", $7 / 1024)
	add($2 SUBSEP "ours", $8)
	if ($11 > 0)
		add($2 SUBSEP "share", 100 * $8 / $11)
	if ($8 > 0) {
		add($2 SUBSEP "frames", $10 / $8)
		if ($9 != "-")
			add($2 SUBSEP "py", 100 * $9 / $8)
	}
	reps[$1] = 1
}
END {
	ratios("ratio")
	print "| profiler | BPF ns/sample | × bpftrace | samples | CPU s | max RSS MiB | pybench samples | of all % | frames/sample | Python frames % |"
	print "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
	n = split(order, p, " ")
	for (i = 1; i <= n; i++)
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p[i],
			cell(p[i] SUBSEP "ns", "%.0f"), cell(p[i] SUBSEP "ratio", "%.2f"),
			cell(p[i] SUBSEP "runs", "%d"), cell(p[i] SUBSEP "cpu", "%.2f"),
			cell(p[i] SUBSEP "rss", "%.1f"), cell(p[i] SUBSEP "ours", "%d"),
			cell(p[i] SUBSEP "share", "%.0f"),
			cell(p[i] SUBSEP "frames", "%.1f"), cell(p[i] SUBSEP "py", "%.1f")
}
