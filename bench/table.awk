# table.awk - bench/run.sh's raw runs (TSV, one line per run) -> one markdown
# table, a row per workload, profiler and rate; each cell the median [min-max]
# over the repetitions. Slowdown compares the workload's throughput per CPU
# second it used (iterations / its own CPU time, which includes the time
# interrupts and the BPF program took from it: no IRQ time accounting) with
# the median of the unprofiled runs of the same batch (same workload and
# repetition). Per CPU second rather than per wall second: other tasks that
# share the workload's CPU change the latter, not the former.
# Whole: the share of the workload's samples whose user stack reaches its
# thread's root (count.awk's third figure).
# Variables: workloads, profilers, rates (space-separated, the row order);
# labels ("wl=label|..."). Cells: cells.awk.
NR == 1 { next }
# pass 1 (the file is read once; rows are kept): baselines per batch
{
	row[NR] = $0
	if ($3 == "base" && $5 == 1 && $7 > 0)
		base[$1, $2, ++nb[$1, $2]] = $6 / $7
}
END {
	for (k in nb) {
		split(k, kk, SUBSEP)
		n = nb[k]
		for (i = 1; i <= n; i++)
			b[i] = base[k, i]
		sort(b, n)
		bmed[k] = median(b, n)
	}
	for (r = 2; r <= NR; r++) {
		split(row[r], f, "\t")
		# a run that printed no sample at all failed, whatever its exit status
		if (f[3] == "base" || f[5] != 1 || f[17] == "0")
			continue
		k = f[1] SUBSEP f[3] SUBSEP f[4]
		if ((f[1], f[2]) in bmed && bmed[f[1], f[2]] > 0 && f[7] > 0)
			add(k SUBSEP "slow", 100 * (1 - f[6] / f[7] / bmed[f[1], f[2]]))
		if (f[9] > 0)
			add(k SUBSEP "nsrun", f[8] / f[9])
		add(k SUBSEP "cpu", f[11])
		if (f[12] != "")
			add(k SUBSEP "rss", f[12] / 1024)
		add(k SUBSEP "end", f[13])
		if (f[7] > 0 && f[14] != "")
			add(k SUBSEP "kept", 100 * f[14] / (f[4] * f[7] / 1e6))
		if (f[14] > 0 && f[18] != "")
			add(k SUBSEP "whole", 100 * f[18] / f[14])
		add(k SUBSEP "lost", f[15])
		add(k SUBSEP "ovf", f[16])
		add(k SUBSEP "noroom", f[19])
		add(k SUBSEP "fpfirst", f[20])
	}
	nl = split(labels, lab, "|")
	for (i = 1; i <= nl; i++)
		if (index(lab[i], "="))
			label[substr(lab[i], 1, index(lab[i], "=") - 1)] = substr(lab[i], index(lab[i], "=") + 1)
	print "| workload | profiler | Hz | slowdown % | BPF ns/run | CPU s | max RSS MiB | end-of-run s | kept % | whole % | lost stacks |"
	print "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
	nw = split(workloads, W, " ")
	np = split(profilers, P, " ")
	nr = split(rates, H, " ")
	for (w = 1; w <= nw; w++)
		for (p = 1; p <= np; p++)
			for (h = 1; h <= nr; h++) {
				k = W[w] SUBSEP P[p] SUBSEP H[h]
				lost = cell(k SUBSEP "lost", "%.0f")
				if (index(P[p], "profile") == 1 && nv[k SUBSEP "ovf"])
					lost = lost " (overflow map: " cell(k SUBSEP "ovf", "%.0f") ")"
				if (nv[k SUBSEP "noroom"])
					lost = lost "; unwind tables: " cell(k SUBSEP "noroom", "%.0f") " files found no room, " \
						cell(k SUBSEP "fpfirst", "%.0f") " stacks by FP before their table"
				printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
					(W[w] in label ? label[W[w]] : W[w]), P[p], H[h],
					cell(k SUBSEP "slow", "%.1f"),
					index(P[p], "perf") == 1 ? "—" : cell(k SUBSEP "nsrun", "%.0f"),
					cell(k SUBSEP "cpu", "%.2f"), cell(k SUBSEP "rss", "%.1f"),
					cell(k SUBSEP "end", "%.2f"), cell(k SUBSEP "kept", "%.1f"),
					cell(k SUBSEP "whole", "%.1f"), lost
			}
}
