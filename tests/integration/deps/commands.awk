# commands.awk - the words at command position in the shell scripts given
# (tests/integration/deps.sh): a rough parse that errs on the side of
# listing too much; the caller keeps those that are programs on this
# machine. Single-quoted text (awk, sed and jq programs) is skipped.
function emit(w) {
	gsub(/^[({!]+/, "", w)
	if (w ~ /^[A-Za-z_][A-Za-z0-9_]*=/) return 1	# an assignment: the next word is the command
	if (w == "" || w ~ /^[$"'`\\<>&0-9-]/) return 0
	print w
	return 0
}
{
	line = $0
	gsub(/'[^']*'/, "''", line)		# awk, sed and jq programs: not commands
	sub(/(^|[ \t])#.*/, "", line)		# comments (not inside strings: close enough)
	gsub(/\$\(/, " ; ", line)
	gsub(/`/, " ; ", line)
	gsub(/\|\||&&|[|;()]/, " ; ", line)
	n = split(line, w, /[ \t]+/)
	start = 1
	for (i = 1; i <= n; i++) {
		if (w[i] == "") continue
		if (w[i] == ";") { start = 1; continue }
		if (start) {
			if (w[i] ~ /^(then|else|do|if|while|until|!|time|exec|nice|env|xargs|timeout|command)$/) {
				if (w[i] ~ /^(time|exec|nice|env|xargs|timeout|command)$/) print w[i]
				# timeout's duration
				if (w[i] == "timeout") i++
				continue
			}
			start = emit(w[i])
		}
	}
}
