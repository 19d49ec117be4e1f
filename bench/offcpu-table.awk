# offcpu-table.awk - bench/offcpu.sh's table, from its runs (after
# cells.awk): "rep tracer round_trips_per_s bpf_ns runs_per_s cpu_s" a
# line; order: the tracers, in the table's order.
{
	rate[$1, $2] = $3
	add($2 SUBSEP "rate", $3)
	add($2 SUBSEP "bpf", $4)
	add($2 SUBSEP "runs", $5)
	add($2 SUBSEP "cpu", $6)
}
END {
	# the ns a switch took more than in the same repetition without a tracer
	for (k in rate) {
		split(k, kk, SUBSEP)
		if (kk[2] != "none" && ((kk[1], "none") in rate) && rate[k] > 0)
			add(kk[2] SUBSEP "added", (1e9 / rate[k] - 1e9 / rate[kk[1], "none"]) / 2)
	}
	print "| tracer | round trips/s | ns added a switch | BPF ns a program run | switches/s traced (both CPUs) | tracer CPU s |"
	print "|---|--:|--:|--:|--:|--:|"
	n = split(order, o, " ")
	for (i = 1; i <= n; i++)
		printf "| %s | %s | %s | %s | %s | %s |\n", o[i], cell(o[i] SUBSEP "rate", "%.0f"),
			cell(o[i] SUBSEP "added", "%.0f"), cell(o[i] SUBSEP "bpf", "%.0f"),
			cell(o[i] SUBSEP "runs", "%.0f"), cell(o[i] SUBSEP "cpu", "%.2f")
}
