# python_lib.sh - what the Python suites (python.sh, python_debian.sh)
# share; sourced after lib.sh.

PY=/usr/bin/python3
PW=tests/workloads/python
HOT=$PW/pyhot.py
# the absolute path: python (3.9 on) makes it the script's co_filename
HOTP=$PWD/$HOT

# chain P F...: the Python frames F of file P, in call order, as a regex
chain() {
	p=$1
	shift
	out=""
	for f in "$@"; do
		out="$out;$f [(]$p[)]"
	done
	echo "$out"
}

# shares_532 FOLDED PREFIX COMM MIN WHOLE [FILE]: of the samples whose
# stack is PREFIX then pyhot's chain (its file FILE, by default $HOTP) to
# hot_X, then native frames only, hot_a/b/c's shares (printed); fails
# unless within 3 points of 50/30/20 and there are at least MIN of them,
# and at least WHOLE% of COMM's samples are so.
shares_532() {
	folded=$1 prefix=$2 comm=$3 min=$4 whole=$5 file=${6:-$HOTP}
	base="$prefix$(chain "$file" '<module>' main run_round)"
	all=$(sum_matching "^$comm;" "$folded")
	a=$(sum_matching "$base$(chain "$file" hot_a)(;[^;(]*)* [0-9]+\$" "$folded")
	b=$(sum_matching "$base$(chain "$file" hot_b)(;[^;(]*)* [0-9]+\$" "$folded")
	c=$(sum_matching "$base$(chain "$file" hot_c)(;[^;(]*)* [0-9]+\$" "$folded")
	n=$((a + b + c))
	echo "  $n of $all samples with the whole chain: hot_a=$a hot_b=$b hot_c=$c"
	[ "$n" -ge "$min" ] || fail "too few: $(sort -t' ' -k2 -rn "$folded" | head -3)" || return 1
	[ "$(pct "$n" "$all")" -ge "$whole" ] ||
		fail "chains not whole: $(grep "^$comm;" "$folded" | grep -v -- "$(chain "$file" run_round hot_)" | sort -t' ' -k2 -rn | head -3)" || return 1
	sa=$((a * 1000 / n)) sb=$((b * 1000 / n)) sc=$((c * 1000 / n))
	echo "  shares (per mille) $sa/$sb/$sc"
	[ "$sa" -ge 470 ] && [ "$sa" -le 530 ] && [ "$sb" -ge 270 ] && [ "$sb" -le 330 ] &&
		[ "$sc" -ge 170 ] && [ "$sc" -le 230 ] || fail "shares $sa/$sb/$sc, want 500/300/200 +-30" || return 1
}

