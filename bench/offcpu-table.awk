# offcpu-table.awk - bench/offcpu.sh's table, from its runs (after
# cells.awk): "rep tracer round_trips_per_s cpu_ns_per_round_trip bpf_ns
# runs_per_s cpu_s" a line; order: the tracers, in the table's order.
{
	rtc[$1, $2] = $4
	add($2 SUBSEP "rate", $3)
	add($2 SUBSEP "rtc", $4)
	add($2 SUBSEP "bpf", $5)
	add($2 SUBSEP "runs", $6)
	add($2 SUBSEP "cpu", $7)
}
END {
	# the CPU ns a switch took more than in the same repetition without a tracer
	for (k in rtc) {
		split(k, kk, SUBSEP)
		if (kk[2] != "none" && ((kk[1], "none") in rtc) && rtc[k] != "-" && rtc[kk[1], "none"] != "-")
			add(kk[2] SUBSEP "added", (rtc[k] - rtc[kk[1], "none"]) / 2)
	}
	print "| tracer | round trips/s | CPU ns a round trip | CPU ns added a switch | BPF ns a program run | switches/s traced (both CPUs) | tracer CPU s |"
	print "|---|--:|--:|--:|--:|--:|--:|"
	n = split(order, o, " ")
	for (i = 1; i <= n; i++)
		printf "| %s | %s | %s | %s | %s | %s | %s |\n", o[i], cell(o[i] SUBSEP "rate", "%.0f"),
			cell(o[i] SUBSEP "rtc", "%.0f"), cell(o[i] SUBSEP "added", "%.0f"),
			cell(o[i] SUBSEP "bpf", "%.0f"), cell(o[i] SUBSEP "runs", "%.0f"),
			cell(o[i] SUBSEP "cpu", "%.2f")
}
