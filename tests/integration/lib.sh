# lib.sh - what the integration suites share; sourced after setting SUITE
# (the name printed on the closing "SUITE: N passed, N failed" line).
# They need root (BPF, perf events, mounts): without it they fail, never skip.

cd "$(dirname "$0")/../.." || exit 1
# no debuginfod servers from the caller's environment (Debian's profile.d
# sets some): a test fetches only from the local servers it starts
unset DEBUGINFOD_URLS
PROFILE=${PROFILE:-./profile}
W=build/workloads
TMP=$(mktemp -d "/tmp/profile-$SUITE.XXXXXX")
SUITE_START=$(date +%s)
PIDS=""
passed=0
failed=0

# a suite may define cleanup_extra (unmounts and the like)
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	command -v cleanup_extra > /dev/null && cleanup_extra
	rm -rf "$TMP"
}
trap cleanup EXIT

if [ "$(id -u)" -ne 0 ]; then
	echo "$SUITE: must run as root (BPF, perf events); not skipping" >&2
	echo "$SUITE: 0 passed, 1 failed"
	exit 1
fi
if [ ! -x "$PROFILE" ]; then
	echo "$SUITE: no $PROFILE: run make first" >&2
	echo "$SUITE: 0 passed, 1 failed"
	exit 1
fi

# start CMD...: run it in the background, its pid in $LAST
start() {
	"$@" &
	LAST=$!
	PIDS="$PIDS $LAST"
}

stop() {
	kill "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

fail() {
	echo "  FAIL: $*"
	return 1
}

# run_test "what it checks" t_function; ONLY=t_function runs that one alone
run_test() {
	name=$1
	shift
	[ -n "${ONLY:-}" ] && [ "$1" != "$ONLY" ] && return 0
	[ -n "${SHIPPED_ONLY:-}" ] && [ "${shipped_test:-}" != 1 ] && return 0
	echo "test: $name"
	# make check ran this suite's shipped tests (or this one) on ./profile just before
	if [ "${shipped_test:-}" = 1 ]; then
		case " ${SHIPPED_DONE:-} " in
		*" $SUITE "* | *" $1 "*) echo "  ran on ./profile (SHIPPED_DONE)"; return 0 ;;
		esac
	fi
	run_test_t0=$(date +%s%N)
	if "$@"; then
		passed=$((passed + 1))
		echo "  ok ($(elapsed_since "$run_test_t0"))"
	else
		failed=$((failed + 1))
		echo "  ($(elapsed_since "$run_test_t0"))"
		# make check's lanes: run again alone afterwards (tests/ci-extra.sh)
		[ -z "${RETRY_LOG:-}" ] || echo "$SUITE $1" >> "$RETRY_LOG"
	fi
}

# run_shipped_test "what it checks" t_function: a test of what holds for the
# tool as shipped and not for its ASan build (time and memory bounds, the
# browser's rendering). make check runs every test on the sanitized build,
# and then, with SHIPPED_ONLY=1, these alone on ./profile.
run_shipped_test() {
	shipped_test=1
	run_test "$@"
	shipped_test=
}

# "N.N s" since a `date +%s%N` stamp: each test's time, to see where CI's goes
elapsed_since() {
	ms=$((($(date +%s%N) - $1) / 1000000))
	printf '%d.%d s' $((ms / 1000)) $((ms % 1000 / 100))
}

# sum of counts of folded lines matching a regex
sum_matching() {
	awk -v re="$1" '$0 ~ re { n += $NF } END { print n + 0 }' "$2"
}

# percent N of D, as an integer; 0 when D is 0
pct() {
	[ "$2" -gt 0 ] && echo $(($1 * 100 / $2)) || echo 0
}

# profile_pid TAG PID [OPTION...]: 2 s of PID's stacks at 999 Hz, folded,
# into $TMP/TAG.folded (stderr in $TMP/TAG.err); an error exit fails
profile_pid() {
	tag=$1 target=$2
	shift 2
	$PROFILE -F 999 -f "$@" -p "$target" 2 > "$TMP/$tag.folded" 2> "$TMP/$tag.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/$tag.err")"
}

# whole_share TAG ALL WHOLE MIN WHAT: more than MIN samples of
# $TMP/TAG.folded match the regex ALL, and 90% or more of them WHOLE
# ("W of A WHAT" said); else the three heaviest of ALL are shown
whole_share() {
	all=$(sum_matching "$2" "$TMP/$1.folded")
	whole=$(sum_matching "$3" "$TMP/$1.folded")
	echo "  $whole of $all $5"
	[ "$all" -gt "$4" ] || fail "only $all samples: $5" || return 1
	[ "$(pct "$whole" "$all")" -ge 90 ] ||
		fail "$whole of $all $5: $(awk -v re="$2" '$0 ~ re' "$TMP/$1.folded" |
			sort -t' ' -k2 -rn | head -3 | cut -c1-200)"
}

# field N of the -v statistics line: "profile: event E, S samples, P printed, D dropped, ..."
stat_field() {
	awk -v n="$1" '/samples, [0-9]+ printed/ { print $n; exit }' "$2"
}

# has_frame NAME FILE: NAME is a whole frame of some folded stack
has_frame() {
	grep -qF -e ";$1;" -e ";$1 " "$2" ||
		fail "no frame '$1' in: $(head -c 600 "$2")"
}

# has_no_frame NAME FILE
has_no_frame() {
	! grep -qF -e ";$1;" -e ";$1 " "$2" || fail "frame '$1' should not be there"
}

# build_spin OUT HOT CALLER: tests/integration/symbols/spin.c with its own
# function names, frame pointers kept
build_spin() {
	clang -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -DHOT="$2" -DCALLER="$3" \
		tests/integration/symbols/spin.c -o "$1"
}

build_id_of() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3 }'
}

# With RETRY_LOG set (make check's lanes), a suite whose tests failed
# still succeeds: they are in RETRY_LOG, and ci-extra.sh runs each again
# alone, which decides.
finish() {
	echo "$SUITE: $passed passed, $failed failed in $(($(date +%s) - SUITE_START)) s"
	[ "$failed" -eq 0 ] || [ -n "${RETRY_LOG:-}" ]
}
