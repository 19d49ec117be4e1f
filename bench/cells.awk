# cells.awk - the benches' tables' cells, shared by table.awk (run.sh),
# python-table.awk (python.sh) and unwind.sh: values gathered by key over
# the repetitions, each cell their median [min-max]. Loaded with -f before
# the table's own program. Variable none: a cell without values ("—").
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
# add(key, v): one run's value ("" or "-": none)
function add(key, v) {
	if (v == "" || v == "-")
		return
	vals[key, ++nv[key]] = v + 0
}
# cell(key, printf format): "med [min-max]" ("med" when they print the same)
function cell(key, f,    n, i, a, s) {
	n = nv[key]
	if (!n)
		return none == "" ? "—" : none
	for (i = 1; i <= n; i++)
		a[i] = vals[key, i]
	sort(a, n)
	s = sprintf(f, median(a, n))
	if (n > 1 && sprintf(f, a[1]) != sprintf(f, a[n]))
		s = s " [" sprintf(f, a[1]) "–" sprintf(f, a[n]) "]"
	return s
}
# ratios(k): each run's ns[rep, profiler] over bpftrace's of the same
# repetition, added under (profiler, k)
function ratios(k,    r, kk) {
	for (r in ns) {
		split(r, kk, SUBSEP)
		if (((kk[1], "bpftrace") in ns) && ns[kk[1], "bpftrace"] > 0)
			add(kk[2] SUBSEP k, ns[r] / ns[kk[1], "bpftrace"])
	}
}
