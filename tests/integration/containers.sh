#!/bin/sh
# containers.sh - which container a stack came from: two workloads in two
# cgroup v2 directories the suite makes (one named as docker names its
# containers' scopes, one not), told apart by --by-container in every
# format and picked by --cgroup, which the BPF program checks; and the
# one-line errors of bad --cgroup paths. Root needed; prints
# "containers: N passed, N failed" last.
set -u

SUITE=containers
. "$(dirname "$0")/lib.sh"

# The cgroup v2 mount: /sys/fs/cgroup, or /sys/fs/cgroup/unified on a
# hybrid host. None: every test fails (CI's machines have one).
CG=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
ID=$(printf '5eed%.0s' $(seq 16))	# 64 hex digits, a container id
BASE=profile-containers.$$
APP=$BASE/app_a			# no runtime's name: its path is its label
BOX=$BASE/docker-$ID.scope	# docker's systemd driver: the id is its label

cleanup_extra() {
	[ -n "$CG" ] || return 0
	for d in "$CG/$APP" "$CG/$BOX" "$CG/$BASE"; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	return 0
}

# in_cgroup DIR CMD...: run CMD in cgroup DIR (under $CG), in the background
in_cgroup() {
	dir=$1
	shift
	start sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/$dir" "$@"
}

# the two workloads for SECS seconds: hotspots in $APP, syscalls in $BOX
start_two() {
	[ -n "$CG" ] || fail "no cgroup v2 hierarchy in /proc/self/mountinfo" || return 1
	mkdir -p "$CG/$APP" "$CG/$BOX" || fail "cannot make cgroups under $CG" || return 1
	in_cgroup "$APP" $W/hotspots "$1"
	HOT=$LAST
	in_cgroup "$BOX" $W/syscalls "$1"
	SYS=$LAST
	sleep 0.3
	grep -q "^0::/$APP\$" /proc/$HOT/cgroup || fail "hotspots is not in /$APP: $(cat /proc/$HOT/cgroup)" || return 1
	grep -q "^0::/$BOX\$" /proc/$SYS/cgroup || fail "syscalls is not in /$BOX"
}

stop_two() {
	stop "$HOT"
	stop "$SYS"
}

# samples of folded file $2 whose line starts with $1
sum_prefix() {
	awk -v p="$1" 'index($0, p) == 1 { n += $NF } END { print n + 0 }' "$2"
}

# (The sample counts only need to be enough to tell the split: the two
# workloads share the CPUs with each other and with whatever else runs.)

# Folded: each container its own root frame, each workload under its own
# only; --cgroup BASE keeps other agents' processes out. Without
# --by-container the lines start at comm, as before.
t_folded_split() {
	start_two 8 || return 1
	$PROFILE -F 499 -f --by-container --cgroup "/$BASE" 2 > "$TMP/s.folded" 2> "$TMP/s.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/s.err")" || return 1
	$PROFILE -F 499 -f --cgroup "/$BASE" 1 > "$TMP/plain.folded" 2> "$TMP/plain.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/plain.err")" || return 1
	stop_two
	all=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/s.folded")
	app=$(sum_prefix "/$APP;hotspots;" "$TMP/s.folded")
	box=$(sum_prefix "$ID;syscalls;" "$TMP/s.folded")
	echo "  $app samples of hotspots under /$APP, $box of syscalls under $ID, of $all"
	[ "$app" -gt 50 ] || fail "only $app samples of hotspots under /$APP: $(head -3 "$TMP/s.folded")" || return 1
	[ "$box" -gt 50 ] || fail "only $box samples of syscalls under $ID: $(head -3 "$TMP/s.folded")" || return 1
	[ "$((app + box))" -eq "$all" ] ||
		fail "$((all - app - box)) samples elsewhere: $(grep -v -e "^/$APP;hotspots;" -e "^$ID;syscalls;" "$TMP/s.folded" | head -3)" || return 1
	has_frame hot_a "$TMP/s.folded" || return 1
	! grep -q "^$ID;.*hot_a" "$TMP/s.folded" || fail "hot_a under $ID" || return 1
	# as before: comm first
	n=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/plain.folded")
	ok=$(awk '/^(hotspots|syscalls);/ { n += $NF } END { print n + 0 }' "$TMP/plain.folded")
	[ "$n" -gt 50 ] && [ "$ok" -eq "$n" ] ||
		fail "without --by-container, $ok of $n samples start at comm: $(head -2 "$TMP/plain.folded")"
}

# --cgroup takes a cgroup path or the directory itself; only its tasks
# are sampled, whatever else runs
t_filter() {
	start_two 8 || return 1
	$PROFILE -F 499 -f --cgroup "/$APP" 2 > "$TMP/a.folded" 2> "$TMP/a.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/a.err")" || return 1
	$PROFILE -F 499 -f --cgroup "$CG/$BOX" 1 > "$TMP/b.folded" 2> "$TMP/b.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/b.err")" || return 1
	# both, repeated: the union
	$PROFILE -F 499 -f --cgroup "/$APP" --cgroup "/$BOX" 1 > "$TMP/ab.folded" 2> "$TMP/ab.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/ab.err")" || return 1
	stop_two
	for f in a:hotspots b:syscalls; do
		tag=${f%%:*} comm=${f#*:}
		all=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/$tag.folded")
		mine=$(sum_prefix "$comm;" "$TMP/$tag.folded")
		echo "  $tag: $mine of $all samples are $comm's"
		[ "$all" -gt 50 ] || fail "$tag: only $all samples" || return 1
		[ "$mine" -eq "$all" ] || fail "$tag: others sampled: $(grep -v "^$comm;" "$TMP/$tag.folded" | head -3)" || return 1
	done
	hot=$(sum_prefix "hotspots;" "$TMP/ab.folded")
	sys=$(sum_prefix "syscalls;" "$TMP/ab.folded")
	all=$(awk '{ n += $NF } END { print n + 0 }' "$TMP/ab.folded")
	echo "  both: $hot of hotspots, $sys of syscalls, of $all"
	[ "$hot" -gt 50 ] && [ "$sys" -gt 50 ] && [ "$((hot + sys))" -eq "$all" ] ||
		fail "two --cgroup: $hot hotspots, $sys syscalls of $all"
}

# pprof: labels container_id and cgroup on every sample; hot_a only in
# the samples of /$APP
t_pprof_labels() {
	start_two 8 || return 1
	$PROFILE -F 499 --by-container --cgroup "/$BASE" -o "$TMP/p.pb.gz" 2 2> "$TMP/p.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/p.err")" || return 1
	stop_two
	go tool pprof -tags "$TMP/p.pb.gz" > "$TMP/tags.txt" 2>&1 || fail "go tool pprof: $(head -3 "$TMP/tags.txt")" || return 1
	for want in "container_id:" "cgroup:" ": $ID\$" ": /$APP\$" ": /$BOX\$"; do
		grep -q -e "$want" "$TMP/tags.txt" || fail "no '$want' in: $(cat "$TMP/tags.txt")" || return 1
	done
	# no frame for it: the stacks are as before
	go tool pprof -top -nodecount=100 "$TMP/p.pb.gz" > "$TMP/top.txt" 2>&1
	! grep -q -e "$ID" -e "/$APP" "$TMP/top.txt" ||
		fail "the container as a function: $(grep -e "$ID" -e "/$APP" "$TMP/top.txt")" || return 1
	go tool pprof -top -tagfocus="container_id=$ID" "$TMP/p.pb.gz" > "$TMP/box.txt" 2>&1
	go tool pprof -top -tagfocus="cgroup=/$APP" "$TMP/p.pb.gz" > "$TMP/app.txt" 2>&1
	grep -q hot_a "$TMP/app.txt" || fail "no hot_a in /$APP's samples: $(head -12 "$TMP/app.txt")" || return 1
	! grep -q hot_a "$TMP/box.txt" || fail "hot_a in $ID's samples: $(head -12 "$TMP/box.txt")"
}

# SVG and speedscope: a root frame per container (in each process's
# profile, in speedscope), each workload's functions under its own
t_svg_json_split() {
	start_two 8 || return 1
	$PROFILE -F 499 --by-container --cgroup "/$BASE" -o "$TMP/p.json" 2 2> "$TMP/j.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/j.err")" || return 1
	$PROFILE -F 499 --by-container --cgroup "/$BASE" -o "$TMP/p.svg" 1 2> "$TMP/s.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/s.err")" || return 1
	stop_two
	xmllint --noout "$TMP/p.svg" || fail "SVG not well-formed" || return 1
	# all, then the containers on the row above it, then the processes
	svg_row() {
		grep -F "<title>$1 (" "$TMP/p.svg" | sed -n 's/.*<rect [^>]* y="\([0-9.]*\)".*/\1/p' | head -1
	}
	all_y=$(svg_row all) app_y=$(svg_row "/$APP") box_y=$(svg_row "$ID")
	hot_y=$(svg_row hotspots) sys_y=$(svg_row syscalls)
	echo "  SVG rows: all $all_y, /$APP $app_y, $ID $box_y, hotspots $hot_y, syscalls $sys_y"
	[ -n "$all_y" ] && [ -n "$app_y" ] && [ "$app_y" = "$box_y" ] && [ "$hot_y" = "$sys_y" ] &&
		awk -v a="$all_y" -v c="$app_y" -v p="$hot_y" 'BEGIN { exit !(a > c && c > p) }' ||
		fail "the SVG's rows are not all, containers, processes" || return 1
	# the weight of the samples whose root frame is $1 and that hold frame $2
	root_weight() {
		jq --arg r "$1" --arg f "$2" '(.shared.frames | map(.name)) as $n |
			[.profiles[] | . as $p | range($p.samples | length) |
			 select($n[$p.samples[.][0]] == $r and
				any($p.samples[.][]; $n[.] == $f)) | $p.weights[.]] | add // 0' "$TMP/p.json"
	}
	app_hot=$(root_weight "/$APP" hot_a)
	box_hot=$(root_weight "$ID" hot_a)
	box_all=$(jq --arg r "$ID" '(.shared.frames | map(.name)) as $n |
		[.profiles[] | . as $p | range($p.samples | length) |
		 select($n[$p.samples[.][0]] == $r) | $p.weights[.]] | add // 0' "$TMP/p.json")
	roots=$(jq -r '(.shared.frames | map(.name)) as $n | [.profiles[].samples[] | $n[.[0]]] | unique | join(" ")' "$TMP/p.json")
	echo "  JSON: hot_a $app_hot under /$APP, $box_hot under $ID; $ID $box_all; roots: $roots"
	[ "$roots" = "/$APP $ID" ] || fail "root frames: $roots" || return 1
	[ "$app_hot" -gt 0 ] && [ "$box_hot" -eq 0 ] && [ "$box_all" -gt 0 ] ||
		fail "split wrong: hot_a $app_hot under /$APP, $box_hot under $ID, $box_all in $ID"
}

# bad paths: one line, exit 2, before anything is loaded
t_bad_paths() {
	for arg in /no/such/cgroup.$$ "no_such.$$" /etc/hostname; do
		$PROFILE --cgroup "$arg" 1 > "$TMP/out" 2> "$TMP/err"
		rc=$?
		echo "  --cgroup $arg: exit $rc: $(cat "$TMP/err")"
		[ "$rc" -eq 2 ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && [ ! -s "$TMP/out" ] ||
			fail "exit $rc, stderr: $(cat "$TMP/err")" || return 1
		grep -qF -- "--cgroup '$arg'" "$TMP/err" || fail "the path is not named" || return 1
	done
	grep -qi "not a directory" "$TMP/err" || fail "a file: $(cat "$TMP/err")" || return 1
	# a directory of a cgroup v1 hierarchy, where the host has one (hybrid)
	v1=$(awk '$9 == "cgroup" { print $5; exit }' /proc/self/mountinfo)
	if [ -n "$v1" ]; then
		$PROFILE --cgroup "$v1" 1 > "$TMP/out" 2> "$TMP/err"
		rc=$?
		echo "  --cgroup $v1: exit $rc: $(cat "$TMP/err")"
		[ "$rc" -eq 2 ] && grep -q "not a cgroup v2 directory" "$TMP/err" && [ "$(wc -l < "$TMP/err")" -eq 1 ] ||
			fail "a v1 directory: exit $rc, $(cat "$TMP/err")" || return 1
	else
		echo "  no cgroup v1 hierarchy mounted here: that case is the next one's"
	fi
	# a cgroup v1 host: no cgroup2 mount, in a mount namespace of our own
	unshare -m sh -c "umount -l '$CG' && exec $PROFILE --cgroup /x 1" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	echo "  no cgroup v2 mounted: exit $rc: $(cat "$TMP/err")"
	[ "$rc" -eq 2 ] && grep -q "no cgroup v2 hierarchy is mounted" "$TMP/err" && [ "$(wc -l < "$TMP/err")" -eq 1 ] ||
		fail "v1 host: exit $rc, $(cat "$TMP/err")" || return 1
	unshare -m sh -c "umount -l '$CG' && exec $PROFILE --by-container 1" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "no cgroup v2 hierarchy is mounted" "$TMP/err" ||
		fail "--by-container on a v1 host: exit $rc, $(cat "$TMP/err")"
}

run_test "folded: a root frame per container, as before without --by-container" t_folded_split
run_test "--cgroup samples the tasks of its cgroups only" t_filter
run_test "pprof: container_id and cgroup labels" t_pprof_labels
run_test "SVG and speedscope: a root frame per container" t_svg_json_split
run_test "bad --cgroup paths and a cgroup v1 host: one line, exit 2" t_bad_paths
finish
