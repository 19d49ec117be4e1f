#!/bin/sh
# go_symbols.sh - stripped Go programs (go build -ldflags="-s -w": no
# .symtab, no DWARF) named from their function table (.gopclntab):
# tests/workloads/gohot.go, main -> runRound -> hotA/hotB/hotC burning
# 5:3:2 by time, built with Debian 12's Go (1.19, the 1.18 header), as a
# static executable and as a PIE, and with trixie's Go 1.24 (the 1.20+
# header) in a bare trixie root made by mmdebstrap (debian_lib.sh), and
# profiled from the host: every chain named, the split 5:3:2 within 3
# points, no frame named after the file. Root needed; the mirror must be
# reachable for the trixie root. With --lines, the lines and the inlined
# calls (mix in each hot function) the table gives, without DWARF.
# Prints "go_symbols: N passed, N failed" last.
set -u

SUITE=go_symbols
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debian_lib.sh"
trap 'exit 1' INT TERM HUP
ROOT_KIND=go

# go_hot GO OUT [BUILDMODE]: gohot.go built stripped by GO (a go command)
go_hot() {
	mkdir -p "$TMP/gohome"
	env HOME="$TMP/gohome" GOCACHE="$PWD/build/go-cache" GOPATH="$TMP/gopath" GOFLAGS=-mod=mod \
		GO111MODULE=off GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 \
		"$1" build -buildmode="${3:-exe}" -ldflags "-s -w" -o "$2" tests/workloads/gohot.go \
		> "$TMP/gobuild.err" 2>&1 || fail "go build: $(tail -3 "$TMP/gobuild.err")"
}

# section_names BIN: one a line
section_names() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\).*/\1/p'
}

# stripped BIN: no .symtab, no DWARF, a function table
stripped() {
	secs=$(section_names "$1")
	! echo "$secs" | grep -qE '^\.(symtab|debug_)' || fail "$1 is not stripped: $secs" || return 1
	echo "$secs" | grep -qE '^(\.data\.rel\.ro)?\.gopclntab$' || fail "$1 has no .gopclntab"
}

# table_magic BIN: the first 4 bytes of its function table, as hex (the Go version's header)
table_magic() {
	sec=$(section_names "$1" | grep -E '^(\.data\.rel\.ro)?\.gopclntab$' | head -1)
	objcopy -O binary --only-section="$sec" "$1" "$TMP/pcln" && od -An -tx4 -N4 "$TMP/pcln" | tr -d ' '
}

# hot_532 BIN TAG: BIN run 30 s at most, 4 s of it profiled at 999 Hz: at
# least 1000 samples (a quarter of 4 s: the machine is shared) in
# main.runRound's hotA/hotB/hotC from runtime.main, 95% of the program's;
# the split 5:3:2 within 30 per mille; no frame "[comm]" (a frame the
# function table did not name); with --lines, hot_lines
hot_532() {
	start "$1" 30
	pid=$LAST
	sleep 0.5
	# and at once, --lines: the lines and inlined calls the table gives
	{ $PROFILE -U --lines -F 999 -f -p "$pid" 3 > "$TMP/$2.lines" 2> "$TMP/$2.lerr"; echo $? > "$TMP/$2.lrc"; } &
	lines=$!
	$PROFILE -U -F 999 -f -v -p "$pid" 4 > "$TMP/$2.folded" 2> "$TMP/$2.err" ||
		{ rc=$?; wait $lines; stop "$pid"; fail "profile exited $rc: $(tail -2 "$TMP/$2.err")"; return 1; }
	wait $lines
	stop "$pid"
	[ "$(cat "$TMP/$2.lrc")" = 0 ] || fail "profile --lines exited $(cat "$TMP/$2.lrc"): $(tail -2 "$TMP/$2.lerr")" || return 1
	comm=$(basename "$1" | cut -c1-15)
	base="^$comm;runtime\\.goexit;runtime\\.main;main\\.main;main\\.runRound;main\\."
	all=$(sum_matching "^$comm;" "$TMP/$2.folded")
	a=$(sum_matching "${base}hotA(;[^;]*)* [0-9]+\$" "$TMP/$2.folded")
	b=$(sum_matching "${base}hotB(;[^;]*)* [0-9]+\$" "$TMP/$2.folded")
	c=$(sum_matching "${base}hotC(;[^;]*)* [0-9]+\$" "$TMP/$2.folded")
	n=$((a + b + c))
	echo "  $n of $all samples in main.runRound;main.hotX: hotA=$a hotB=$b hotC=$c"
	sort -t' ' -k2 -rn "$TMP/$2.folded" | head -3 | cut -c1-160 | sed 's/^/  /'
	unnamed=$(grep "^$comm;" "$TMP/$2.folded" | grep -F "[$comm]" | head -3)
	[ -z "$unnamed" ] || fail "frames not named: $unnamed" || return 1
	[ "$n" -ge 1000 ] || fail "too few" || return 1
	[ "$(pct "$n" "$all")" -ge 95 ] ||
		fail "chains not whole: $(grep "^$comm;" "$TMP/$2.folded" | grep -v 'main\.runRound;main\.hot' | sort -t' ' -k2 -rn | head -3)" ||
		return 1
	sa=$((a * 1000 / n)) sb=$((b * 1000 / n)) sc=$((c * 1000 / n))
	echo "  shares (per mille) $sa/$sb/$sc"
	[ "$sa" -ge 470 ] && [ "$sa" -le 530 ] && [ "$sb" -ge 270 ] && [ "$sb" -le 330 ] &&
		[ "$sc" -ge 170 ] && [ "$sc" -le 230 ] || fail "shares $sa/$sb/$sc, want 500/300/200 +-30" || return 1
	hot_lines "$TMP/$2.lines" "$comm"
}

# line_of ERE [AFTER]: the number of gohot.go's first line matching ERE (after line AFTER)
line_of() {
	awk -v re="$1" -v after="${2:-0}" 'NR > after && $0 ~ re { print NR; exit }' tests/workloads/gohot.go
}

# hot_lines FOLDED COMM: with --lines, of COMM's samples in hotA/B/C, 95%
# with runRound at the line that calls it; half of them or more in mix,
# inlined there, at a line of mix's and the hot function at the line of
# the call; none unnamed (no "??" frame)
hot_lines() {
	mix=$(line_of '^func mix[(]')
	m="($((mix + 1))|$((mix + 2))|$((mix + 3)))"
	all=0 placed=0 inlined=0
	for x in A B C; do
		call=$(line_of '^\t\ts = mix[(]s, i[)]' "$(line_of "^func hot$x[(]")")
		site=$(line_of "^\t\thot$x[(]chunk[)]")
		[ -n "$mix" ] && [ -n "$call" ] && [ -n "$site" ] || fail "no lines for hot$x in gohot.go" || return 1
		head="^$2;.*;main\\.runRound [(]gohot\\.go:"
		n=$(sum_matching "$head[0-9]+[)];main\\.hot$x[ ;]" "$1")
		p=$(sum_matching "$head$site[)];main\\.hot$x[ ;]" "$1")
		i=$(sum_matching "$head$site[)];main\\.hot$x [(]gohot\\.go:$call[)] > main\\.mix [(]gohot\\.go:$m[)] [0-9]+\$" "$1")
		echo "  hot$x with --lines: $n samples, $p from runRound's line $site, $i in mix (lines $((mix + 1))-$((mix + 3))) from line $call"
		all=$((all + n)) placed=$((placed + p)) inlined=$((inlined + i))
	done
	unnamed=$(grep "^$2;" "$1" | grep -F '??' | head -2)
	[ -z "$unnamed" ] || fail "frames without a name: $unnamed" || return 1
	[ "$all" -ge 500 ] || fail "only $all samples with --lines" || return 1
	[ "$(pct "$placed" "$all")" -ge 95 ] || fail "runRound's lines: $(grep 'main\.hot' "$1" | sort -t' ' -k2 -rn | head -3)" || return 1
	[ "$(pct "$inlined" "$all")" -ge 50 ] ||
		fail "$inlined of $all in mix: $(grep 'main\.hot' "$1" | sort -t' ' -k2 -rn | head -3)"
}

t_go119() {
	go_hot go "$TMP/hot_stripped" || return 1
	stripped "$TMP/hot_stripped" || return 1
	echo "  $(go version), table header $(table_magic "$TMP/hot_stripped")"
	hot_532 "$TMP/hot_stripped" go119
}

t_go119_pie() {
	go_hot go "$TMP/hot_pie" pie || return 1
	stripped "$TMP/hot_pie" || return 1
	readelf -hW "$TMP/hot_pie" | grep -q 'DYN' || fail "not a PIE" || return 1
	hot_532 "$TMP/hot_pie" go119pie
}

# trixie's Go 1.24, run in its root (the build only: a static program runs anywhere)
t_go124() {
	debian_root trixie golang-1.24-go || return 1
	[ -x "$ROOT/usr/lib/go-1.24/bin/go" ] || fail "trixie has no /usr/lib/go-1.24/bin/go" || return 1
	mkdir -p "$TMP/go124/home"
	cp tests/workloads/gohot.go "$TMP/go124/"
	unshare --mount --propagation private sh -c \
		'mount -t proc proc "$1/proc" && mount --bind "$2" "$1/mnt" &&
			exec chroot "$1" env HOME=/mnt/home GOCACHE=/mnt/cache GOTELEMETRY=off \
			GOPATH=/mnt/gopath GO111MODULE=off GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0 \
			/usr/lib/go-1.24/bin/go build -ldflags "-s -w" -o /mnt/hot_stripped /mnt/gohot.go' \
		sh "$ROOT" "$TMP/go124" > "$TMP/go124.err" 2>&1 ||
		fail "go 1.24 build: $(tail -3 "$TMP/go124.err")" || return 1
	stripped "$TMP/go124/hot_stripped" || return 1
	magic=$(table_magic "$TMP/go124/hot_stripped")
	echo "  $(grep -m1 -o 'go1\.[0-9.]*' "$ROOT/usr/lib/go-1.24/VERSION"), table header $magic"
	[ "$magic" = fffffff1 ] || fail "table header $magic, want the 1.20+ one (fffffff1)" || return 1
	hot_532 "$TMP/go124/hot_stripped" go124
}

run_test "a stripped Go 1.19 program: main.runRound;main.hotA... 5:3:2, nothing unnamed" t_go119
run_test "the same as a stripped PIE (.data.rel.ro.gopclntab)" t_go119_pie
run_test "a stripped Go 1.24 program (the 1.20+ header), built in a bare trixie" t_go124

finish
