# fold-perf.awk - fold `perf script` output (with callchains, -g) into one
# line per distinct stack, "comm;root;...;leaf count", the format of
# stackcollapse-perf.pl and of `profile -f`. Offsets (+0x..) are dropped so
# frames merge per function; ';' in names becomes ':'.
#
# Input: a header line per sample ("comm pid [cpu] time: period event:"),
# then one "\taddr symbol+off (dso)" line per frame, leaf first, then a
# blank line.
function flush(    s, i) {
	if (comm == "")
		return
	s = comm
	for (i = n; i >= 1; i--)
		s = s ";" frame[i]
	count[s]++
	comm = ""
	n = 0
}
/^\t/ {
	if (comm == "")
		next
	line = $0
	sub(/^[ \t]+[0-9a-f]+ /, "", line)	# address
	sub(/ \([^()]*\)$/, "", line)		# (dso)
	sub(/\+0x[0-9a-f]+$/, "", line)	# offset
	gsub(/;/, ":", line)
	if (line == "")
		line = "[unknown]"
	frame[++n] = line
	next
}
/^[ \t]*$/ { flush(); next }
{
	flush()
	# the comm is what comes before " PID[/TID] [CPU] " (comms have spaces)
	if (match($0, /[ \t]+[0-9]+(\/[0-9]+)?[ \t]+\[[0-9]+\][ \t]/)) {
		comm = substr($0, 1, RSTART - 1)
		sub(/^[ \t]+/, "", comm)
		gsub(/;/, ":", comm)
		if (comm == "")
			comm = "[unknown]"
	}
	n = 0
}
END {
	flush()
	for (s in count)
		print s, count[s]
}
