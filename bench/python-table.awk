# python-table.awk - bench/python.sh's runs, one line each
# "rep profiler ok run_ns runs cpu_s rss_kb our_samples python_samples
# frames all_samples" (python_samples "-": not counted; # a comment),
# -> one markdown table, a row per profiler (in the order of the variable
# order), each cell the median [min-max] over the repetitions; the ratio
# to bpftrace is taken within each repetition. A failed run (ok 0) gives
# no values.
function sort(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}
function median(a, n) {
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function add(key, v) {
	if (v == "" || v == "-")
		return
	vals[key, ++nv[key]] = v + 0
}
# cell(key, printf format): "med [min-max]", "—" when no run gave a value
function cell(key, f,    n, i, a, s) {
	n = nv[key]
	if (!n)
		return "—"
	for (i = 1; i <= n; i++)
		a[i] = vals[key, i]
	sort(a, n)
	s = sprintf(f, median(a, n))
	if (n > 1 && sprintf(f, a[1]) != sprintf(f, a[n]))
		s = s " [" sprintf(f, a[1]) "–" sprintf(f, a[n]) "]"
	return s
}
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
	for (k in ns) {
		split(k, kk, SUBSEP)
		if (((kk[1], "bpftrace") in ns) && ns[kk[1], "bpftrace"] > 0)
			add(kk[2] SUBSEP "ratio", ns[k] / ns[kk[1], "bpftrace"])
	}
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
