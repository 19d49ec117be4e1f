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


# line_of FILE ERE [AFTER]: the number of FILE's first line matching ERE
# (after line AFTER)
line_of() {
	awk -v re="$2" -v after="${3:-0}" 'NR > after && $0 ~ re { print NR; exit }' "$1"
}

# lines_532 FOLDED COMM MIN [FILE]: with --lines, of COMM's samples in
# hot_a/b/c, those whose Python frames carry the lines pyhot.py's source
# says (<module> at main(), main at run_round(), run_round at the call of
# hot_X, hot_X in its loop); fails unless at least MIN, and 95% of them.
# FILE: the script as its frames name it (by default $HOTP).
lines_532() {
	folded=$1 comm=$2 min=$3 file=${4:-$HOTP}
	lm=$(line_of "$HOT" '^main[(][)]$') lmain=$(line_of "$HOT" '^ +run_round[(][)]$')
	base="^$comm;.*;<module> [(]$file:$lm[)];main [(]$file:$lmain[)]"
	total=0 good=0
	for x in a b c; do
		def=$(line_of "$HOT" "^def hot_$x[(]")
		call=$(line_of "$HOT" "^ +hot_$x[(]")
		loop=$(line_of "$HOT" 'for i in range' "$def") body=$(line_of "$HOT" 's [+]= i' "$def")
		[ -n "$lm" ] && [ -n "$lmain" ] && [ -n "$call" ] && [ -n "$loop" ] && [ -n "$body" ] ||
			fail "no lines for hot_$x in $HOT" || return 1
		in_x=$(sum_matching "^$comm;.*;hot_$x [(]" "$folded")
		right=$(sum_matching "$base;run_round [(]$file:$call[)];hot_$x [(]$file:($loop|$body)[)](;[^;]*)* [0-9]+\$" "$folded")
		echo "  hot_$x: $right of $in_x samples at lines $lm/$lmain/$call/$loop|$body"
		total=$((total + in_x)) good=$((good + right))
	done
	[ "$good" -ge "$min" ] ||
		fail "too few with their lines: $(grep "^$comm;" "$folded" | sort -t' ' -k2 -rn | head -2)" || return 1
	[ "$(pct "$good" "$total")" -ge 95 ] ||
		fail "lines not right: $(grep "^$comm;.*hot_" "$folded" | sort -t' ' -k2 -rn | head -2)" || return 1
}

# threads_check FOLDED FILE: pythreads.py's three threads (FILE, as
# their frames name it), each at least 95% in its own functions and never
# in another's: two taking turns with the GIL, one in zlib without it,
# sampled while another holds it
threads_check() {
	folded=$1 P=$2
	for t in a b c; do
		f=spin_$t
		[ $t = c ] && f=in_c
		all=$(sum_matching "^pyth_$t;" "$folded")
		own=$(sum_matching "^pyth_$t;.*$(chain "$P" thread_$t $f)(;[^;(]*)* [0-9]+\$" "$folded")
		other=$(sum_matching "^pyth_$t;.*(thread|spin|in)_[^$t] [(]" "$folded")
		echo "  pyth_$t: $own of $all samples in thread_$t;$f, $other in another's"
		[ "$all" -ge 600 ] || fail "pyth_$t: only $all samples" || return 1
		[ "$(pct "$own" "$all")" -ge 95 ] || fail "pyth_$t: $(sort -t' ' -k2 -rn "$folded" | grep "^pyth_$t" | head -3)" || return 1
		[ "$other" -eq 0 ] || fail "pyth_$t has another thread's frames" || return 1
	done
}

# die_check FOLDED: pydie.py's frames each named from their own code
# object (python.sh t_code_objects_die says how)
die_check() {
	folded=$1
	awk '{ n = $NF; line = $0
		while (match(line, /fn_[0-9]+ [(]gen_[0-9]+[.]py[)]/)) {
			f = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
			split(f, p, /[_ .]/); if (p[2] != p[4]) bad += n
			per[p[2]] += n
		}
		if ($0 ~ /;work [(]heavy[.]py[)]/) h += n
		if ($0 ~ /;work [(]light[.]py[)]/) l += n
		if ($0 ~ /\[python\]/) un += n
		all += n }
	END { for (k in per) { fns++; fs += per[k]; if (per[k] > max) max = per[k] }
		printf "%d %d %d %d %d %d %d %d\n", bad, fns, fs, max, h, l, un, all }' "$folded" > "$TMP/die.sum"
	read -r bad fns fs max h l un all < "$TMP/die.sum"
	echo "  $fns functions fn_N in $fs samples, at most $max each, $bad samples of fn_N in another's file; work: heavy $h, light $l; $un unnamed of $all"
	[ "$all" -ge 1500 ] && [ "$fns" -ge 100 ] || fail "too few samples or functions" || return 1
	# each lives about one sampling period: most samples name one of their own
	[ "$fns" -ge $((fs / 2)) ] || fail "$fs samples of fn_N under only $fns names" || return 1
	[ "$bad" -eq 0 ] || fail "frames named from another code object: $(grep -E 'fn_([0-9]+) [(]gen_' "$folded" | head -2)" || return 1
	[ "$max" -le 8 ] || fail "one fn_N got $max samples: names that outlived their code" || return 1
	s=$((h * 100 / (h + l)))
	[ "$s" -ge 70 ] && [ "$s" -le 80 ] || fail "heavy.py's share of work is $s%, want 75" || return 1
	[ "$(pct "$un" "$all")" -le 1 ] || fail "$un of $all samples with unnamed Python frames" || return 1
}

# watched_check ERR: -v says the frees of code objects were counted in
# the interpreter's file, so that a frame is known by its code object's
# address while its process frees none (python/py_codes.bpf.h)
watched_check() {
	grep -q 'frees of code objects counted in 1 interpreter files (0 could not be' "$1" ||
		fail "frees of code objects not counted: $(grep 'frees of code' "$1")"
}

# recode_check FOLDED: pyrecode.py's frames each named from the code
# object they run (python.sh t_code_replaced says how)
recode_check() {
	folded=$1
	h=$(sum_matching ';call [(][^;]*;work [(]heavy[.]py[)]' "$folded")
	l=$(sum_matching ';call [(][^;]*;work [(]light[.]py[)]' "$folded")
	all=$(sum_matching '^pyrecode;' "$folded")
	un=$(sum_matching '\[python\]' "$folded")
	echo "  work: heavy $h, light $l; $un unnamed of $all"
	[ "$((h + l))" -ge 1500 ] || fail "too few samples of work" || return 1
	s=$((h * 100 / (h + l)))
	[ "$s" -ge 70 ] && [ "$s" -le 80 ] || fail "heavy.py's share of work is $s%, want 75" || return 1
	[ "$(pct "$un" "$all")" -le 1 ] || fail "$un of $all samples with unnamed Python frames" || return 1
}

# nested_check FOLDED FILE DEPTH: pynest.py's stacks (FILE, as its frames
# name it), at least 95% of them <module>;main then DEPTH + 1 level
# frames in order, each but the last followed by the C frames of map()
# that called the next: every activation's frames in its own place
nested_check() {
	folded=$1 file=$2 depth=$3
	re="^pynest;.*$(chain "$file" '<module>' main)"
	i=0
	while [ $i -lt "$depth" ]; do
		re="$re$(chain "$file" level)(;[^;(]+)+"
		i=$((i + 1))
	done
	re="$re$(chain "$file" level)(;[^;(]+)* [0-9]+\$"
	all=$(sum_matching '^pynest;' "$folded")
	good=$(sum_matching "$re" "$folded")
	echo "  $good of $all samples with $((depth + 1)) level frames, each activation in its place"
	[ "$all" -ge 600 ] || fail "only $all samples" || return 1
	[ "$(pct "$good" "$all")" -ge 95 ] ||
		fail "not in place: $(grep '^pynest;' "$folded" | sort -t' ' -k2 -rn | head -2)" || return 1
}

# py_profile TAG SECONDS OPTIONS CMD ARG...: CMD started, profiled
# (-U -F 999 -f OPTIONS -p) for SECONDS into $TMP/TAG.folded, its stderr
# in $TMP/TAG.err, then stopped; a profile that fails fails the test
py_profile() {
	tag=$1 secs=$2 opts=$3
	shift 3
	start "$@"
	sleep 0.5
	$PROFILE -U -F 999 -f $opts -p "$LAST" "$secs" > "$TMP/$tag.folded" 2> "$TMP/$tag.err" ||
		{ rc=$?; stop "$LAST"; fail "profile exited $rc: $(tail -2 "$TMP/$tag.err")"; return 1; }
	stop "$LAST"
	return 0
}

