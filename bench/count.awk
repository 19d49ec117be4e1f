# count.awk - samples of the bench workloads (comm starting with `prefix`,
# default "bw_") in a profiler's output. fmt=folded: "comm;frames... count"
# lines (profile -f, fold-perf.awk); fmt=bpftrace: the printed map of
# @[kstack, ustack, comm] = count(), whose entries end in ", comm]: count".
# Prints "WORKLOAD_SAMPLES ALL_SAMPLES WHOLE": WHOLE is how many of the
# workload's samples have a user stack that reaches its thread's root
# (_start, or start_thread for threads): the unwinder got all the way up.
BEGIN {
	if (prefix == "")
		prefix = "bw_"
	# a whole frame of a folded line, root first: no offset
	folded_root = ";(_start|start_thread)(;| [0-9]+$)"
	# a line of bpftrace's ustack: "  symbol+offset"
	bt_root = "^[ \t]+(_start|start_thread)\\+[0-9]+$"
}
fmt == "folded" && NF >= 2 {
	comm = $0
	if (index(comm, ";"))
		comm = substr(comm, 1, index(comm, ";") - 1)
	else
		sub(/ [0-9]+$/, "", comm)
	all += $NF
	if (index(comm, prefix) == 1) {
		n += $NF
		if ($0 ~ folded_root)
			whole += $NF
	}
}
# bpftrace: "@[" kernel frames ", " user frames ", comm]: count", a frame a
# line; an empty kernel stack prints "@[, " on one line, two empty stacks
# "@[, , comm]: count"
fmt == "bpftrace" && /^@\[/ {
	in_user = ($0 ~ /^@\[, ?$/)
	rooted = 0
}
fmt == "bpftrace" && /^, ?$/ { in_user = 1; next }
fmt == "bpftrace" && in_user && $0 ~ bt_root { rooted = 1 }
fmt == "bpftrace" && /\]: [0-9]+$/ {
	line = $0
	sub(/\]: [0-9]+$/, "", line)
	comm = line
	while ((i = index(comm, ", ")) > 0)
		comm = substr(comm, i + 2)
	sub(/^@\[/, "", comm)
	all += $NF
	if (index(comm, prefix) == 1) {
		n += $NF
		if (rooted)
			whole += $NF
	}
	in_user = rooted = 0
}
END { print n + 0, all + 0, whole + 0 }
