# unwind-table.awk - bench/unwind.sh's runs, one line each "rep name ok
# run_ns runs ours frames" -> one markdown table, a row per profiler (in
# the order of the variable order), each cell the median [min-max] over
# the repetitions; the ratio to bpftrace is taken within each repetition.
# A failed run (ok 0) gives no values. Cells: cells.awk.
$3 == 1 && $5 > 0 {
	ns[$1, $2] = $4 / $5
	add($2 SUBSEP "ns", $4 / $5)
	if ($6 > 0)
		add($2 SUBSEP "fr", $7 / $6)
}
END {
	ratios("x")
	print "| profiler | BPF ns/sample | × bpftrace (same rep) | uwbench frames/sample |"
	print "|---|--:|--:|--:|"
	n = split(order, o, " ")
	for (i = 1; i <= n; i++)
		printf "| %s | %s | %s | %s |\n", o[i], cell(o[i] SUBSEP "ns", "%.0f"),
			cell(o[i] SUBSEP "x", "%.2f"), cell(o[i] SUBSEP "fr", "%.1f")
}
