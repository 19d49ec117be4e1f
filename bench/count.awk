# count.awk - samples of the bench workloads (comm starting with `prefix`,
# default "bw_") in a profiler's output. fmt=folded: "comm;frames... count"
# lines (profile -f, fold-perf.awk); fmt=bpftrace: the printed map of
# @[kstack, ustack, comm] = count(), whose entries end in ", comm]: count".
# Prints "WORKLOAD_SAMPLES ALL_SAMPLES".
BEGIN { if (prefix == "") prefix = "bw_" }
fmt == "folded" && NF >= 2 {
	comm = $0
	if (index(comm, ";"))
		comm = substr(comm, 1, index(comm, ";") - 1)
	else
		sub(/ [0-9]+$/, "", comm)
	all += $NF
	if (index(comm, prefix) == 1)
		n += $NF
}
fmt == "bpftrace" && /\]: [0-9]+$/ {
	line = $0
	sub(/\]: [0-9]+$/, "", line)
	comm = line
	while ((i = index(comm, ", ")) > 0)
		comm = substr(comm, i + 2)
	sub(/^@\[/, "", comm)
	all += $NF
	if (index(comm, prefix) == 1)
		n += $NF
}
END { print n + 0, all + 0 }
