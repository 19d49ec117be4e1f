#!/bin/sh
# service.sh - profile-snapshot.service and its timer as `make install`
# puts them in place: verified by systemd-analyze, their command run with
# the default settings, the service's exposure as `systemd-analyze
# security` scores it, and the service run by systemd itself with its
# sandbox (capability bounding set, read-only system, private /tmp, no
# /home, system call filter...) while programs in /tmp and /home are
# profiled. Root needed; prints "service: N passed, N failed" last.
set -u

SUITE=service
. "$(dirname "$0")/lib.sh"
# a signal must still run the EXIT trap: it ends the manager, removes its cgroups
trap 'exit 1' INT TERM HUP

# The most `systemd-analyze security` may score the unit (0 safe, 10
# unsafe): 2.9 now, 9.6 before the hardening. What stays exposed is what
# profile needs: root, CAP_BPF, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH,
# CAP_SYSLOG, the network (debuginfod), bpf() and perf_event_open(), and
# /proc/kallsyms (which ProtectKernelTunables= would hide).
MAX_EXPOSURE=2.9
# The unit's capability bounding set as /proc/PID/status shows it: BPF 39,
# PERFMON 38, CHECKPOINT_RESTORE 40, SYSLOG 34, SYS_PTRACE 19, DAC_READ_SEARCH 2
UNIT_CAPBND=000001c400080004

SD=$TMP/sd
CG_DIRS=

# install_units: `make install` into $TMP/root, and in $TMP/units the
# service as installed but for ExecStart, the binary under test ($1, or
# PROFILE's absolute path), and the timer
install_units() {
	root=$TMP/root
	bin=${1:-$(cd "$(dirname "$PROFILE")" && pwd)/$(basename "$PROFILE")}
	if [ ! -f "$root/usr/sbin/profile" ]; then
		make -s install DESTDIR="$root" PREFIX=/usr > "$TMP/inst.log" 2>&1 ||
			fail "make install: $(tail -3 "$TMP/inst.log")" || return 1
	fi
	mkdir -p "$TMP/units"
	sed "s|^ExecStart=/usr/sbin/profile |ExecStart=$bin |" \
		"$root/usr/lib/systemd/system/profile-snapshot.service" > "$TMP/units/profile-snapshot.service"
	cp "$root/usr/lib/systemd/system/profile-snapshot.timer" "$TMP/units/"
}

# make install puts the snapshot service, its timer and /etc/default/profile
# in place; systemd-analyze verifies the units; the service's command, with
# the default file's settings, writes a snapshot and keeps KEEP of them.
t_snapshot_units() {
	install_units || return 1
	for f in usr/sbin/profile usr/share/man/man8/profile.8 etc/default/profile \
		usr/share/bash-completion/completions/profile \
		usr/lib/systemd/system/profile-snapshot.service usr/lib/systemd/system/profile-snapshot.timer; do
		[ -f "$root/$f" ] || fail "make install left out $f" || return 1
	done
	grep -q '^ExecStart=/usr/sbin/profile ' "$root/usr/lib/systemd/system/profile-snapshot.service" ||
		fail "ExecStart is not the installed binary" || return 1
	systemd-analyze verify --man=no "$TMP/units/profile-snapshot.service" \
		"$TMP/units/profile-snapshot.timer" > "$TMP/verify.log" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$TMP/verify.log")" || return 1
	# ExecStart as systemd runs it: the default file's settings, %% as %
	cmd=$(sed -n 's/^ExecStart=//p' "$TMP/units/profile-snapshot.service" | sed 's/%%/%/g')
	for run in 1 2 3; do
		(
			. "$root/etc/default/profile"
			DURATION=1 DIR=$TMP/snapshots KEEP=2
			mkdir -p "$DIR"
			eval "$cmd"
		) 2> "$TMP/snap.err" || fail "snapshot $run: $(cat "$TMP/snap.err")" || return 1
		sleep 1
	done
	n=$(ls "$TMP/snapshots" | grep -c '\.pb\.gz$')
	echo "  snapshots left: $(ls "$TMP/snapshots" | tr '\n' ' ')"
	[ "$n" -eq 2 ] || fail "$n snapshots kept, want KEEP=2" || return 1
	gzip -t "$TMP/snapshots/$(ls "$TMP/snapshots" | head -1)" ||
		fail "the snapshot is not pprof's gzip" || return 1
}

# The unit as installed, scored by `systemd-analyze security` from the
# file alone: at most MAX_EXPOSURE.
t_unit_exposure() {
	install_units || return 1
	systemd-analyze security --offline=true "$TMP/units/profile-snapshot.service" \
		> "$TMP/security.log" 2>&1
	score=$(sed -n 's/^.*Overall exposure level for profile-snapshot.service: \([0-9.]*\) .*$/\1/p' \
		"$TMP/security.log")
	echo "  exposure $score ($(sed -n 's/^.*: [0-9.]* \([A-Z]*\).*$/\1/p' "$TMP/security.log" | tail -1)), at most $MAX_EXPOSURE"
	grep '^✗' "$TMP/security.log" | awk '{ print $2 }' | tr '\n' ' ' | fold -s -w 100 | sed 's/^/  exposed: /'
	echo
	[ -n "$score" ] || fail "no score: $(tail -3 "$TMP/security.log")" || return 1
	awk -v s="$score" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(s + 0 <= m + 0) }' ||
		fail "exposure $score, want at most $MAX_EXPOSURE" || return 1
}

# --- the unit run by systemd -------------------------------------------------

# What is left in the manager's cgroups (all of it started here) is
# ended, and the cgroups removed.
cleanup_extra() {
	for d in $CG_DIRS; do
		[ -d "$d" ] || continue
		for p in $(find "$d" -name cgroup.procs -exec cat {} +); do
			kill "$p" 2>/dev/null
		done
	done
	for d in $CG_DIRS; do
		for i in $(seq 50); do
			[ -d "$d" ] || break
			find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
			sleep 0.1
		done
		[ ! -d "$d" ] || echo "  cgroup $d left: $(find "$d" -name cgroup.procs -exec cat {} +)"
	done
	CG_DIRS=
}

# The namespace the manager runs in (ns.sh, run by unshare -m):
# /run/systemd, /var/lib, /var/cache, /home and /mnt are empty tmpfs there
# (the host's are untouched); the units go to /var/lib/systemd/user, the
# binary under test to /mnt, hotspots_nofp to /home (run as nobody) and to
# $SD (as root).
write_ns_script() {
	cat > "$SD/ns.sh" <<'EOF'
set -u
SD=$1 BIN=$2 W=$3
for d in /run/systemd /var/lib /var/cache /home /mnt; do
	mount -t tmpfs -o mode=755 tmpfs "$d" || exit 1
done
# what PID 1 makes: the nodes ProtectHome= and the like mount over what they hide
mkdir -p /run/systemd/system /run/systemd/inaccessible /run/systemd/user0
mkdir -m 0 /run/systemd/inaccessible/dir
install -m 0 /dev/null /run/systemd/inaccessible/reg
mkfifo -m 0 /run/systemd/inaccessible/fifo
mknod -m 0 /run/systemd/inaccessible/chr c 0 0
mknod -m 0 /run/systemd/inaccessible/blk b 0 0
chmod 700 /run/systemd/user0
# systemd 252 puts a user unit's StateDirectory= in $XDG_CONFIG_HOME,
# and looks for its units there too
mkdir -p /var/lib/systemd
cp -R "$SD/units" /var/lib/systemd/user
cp "$BIN" /mnt/profile
mkdir -m 755 /home/profile-test
cp "$W/hotspots_nofp" /home/profile-test/hotspots_home
cp "$W/hotspots_nofp" "$SD/hotspots_tmp"
setpriv --reuid=65534 --regid=65534 --clear-groups /home/profile-test/hotspots_home 60 > /dev/null &
home=$!
"$SD/hotspots_tmp" 60 > /dev/null &
tmp=$!
"$W/syscalls" 60 > /dev/null &
sys=$!
# the manager's environment alone; StateDirectory= and CacheDirectory=
# are /var/lib/profile and /var/cache/profile, as for the system manager
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root XDG_RUNTIME_DIR=/run/systemd/user0 \
	XDG_CONFIG_HOME=/var/lib XDG_CACHE_HOME=/var/cache \
	SYSTEMD_IGNORE_CHROOT=1 /lib/systemd/systemd --user --unit=profile-test.target \
	> "$SD/manager.log" 2>&1 &
sh "$SD/in_ns.sh" "$SD"
rc=$?
kill $home $tmp $sys
wait $home $tmp $sys 2> /dev/null
exit $rc
EOF
	# with the manager up: start the service, watch it, and keep what it left
	cat > "$SD/in_ns.sh" <<'EOF'
set -u
SD=$1
export XDG_RUNTIME_DIR=/run/systemd/user0 SYSTEMD_IGNORE_CHROOT=1
sc() { systemctl --user "$@"; }
for i in $(seq 100); do
	state=$(sc is-system-running 2>/dev/null)
	case $state in running|degraded) break ;; esac
	sleep 0.1
done
case $state in
running|degraded) ;;
*) echo "the user manager is '$state': $(tail -3 "$SD/manager.log")" > "$SD/why"; exit 1 ;;
esac
sc start --no-block profile-snapshot.service
# the running profile, seen from outside
for i in $(seq 100); do
	pid=$(sc show -P MainPID profile-snapshot.service)
	[ "$pid" != 0 ] && [ "$(readlink /proc/$pid/exe)" = /mnt/profile ] && break
	sleep 0.05
done
grep -E '^(CapBnd|NoNewPrivs|Seccomp):' /proc/$pid/status > "$SD/status" 2>/dev/null
awk '$5 == "/" { print $6 }' /proc/$pid/mountinfo > "$SD/rootfs" 2>/dev/null
# what it sees of /home, of our /tmp, and how its /proc is mounted
{
	echo "home: $(ls -A /proc/$pid/root/home 2>&1 | tr '\n' ' ')"
	[ -e "/proc/$pid/root$SD/default" ] && echo "tmp: ours" || echo "tmp: private"
	echo "proc: $(awk '$5 == "/proc" { print $NF }' /proc/$pid/mountinfo)"
} > "$SD/sees"
for i in $(seq 600); do
	case $(sc show -P ActiveState profile-snapshot.service) in active|activating|deactivating) ;; *) break ;; esac
	sleep 0.1
done
sc show -p Result -p ExecMainStatus -p TimeoutStartUSec -p MemoryMax profile-snapshot.service > "$SD/result"
mkdir -p "$SD/snapshots"
stat -c '%a %n' /var/lib/profile /var/lib/profile/* > "$SD/modes" 2>&1
cp /var/lib/profile/* "$SD/snapshots/" 2>/dev/null
find /var/cache/profile -mindepth 1 -maxdepth 2 > "$SD/cache.ls" 2>&1
sc exit
EOF
}

# cgroup_dirs: a cgroup for the manager below ours, in the cgroup2
# hierarchy and in systemd's v1 one where there is one (hybrid), made;
# their directories in CG_DIRS
cgroup_dirs() {
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[ -n "$v2" ] || fail "no cgroup2 hierarchy mounted: the user manager needs one" || return 1
	CG_DIRS="$v2$(sed -n 's/^0:://p' /proc/self/cgroup)/profile-service.$$"
	v1=$(awk '$3 == "cgroup" && $4 ~ /name=systemd/ { print $2; exit }' /proc/self/mounts)
	[ -n "$v1" ] && CG_DIRS="$CG_DIRS $v1$(sed -n 's/^[0-9]*:name=systemd://p' /proc/self/cgroup)/profile-service.$$"
	for d in $CG_DIRS; do
		mkdir -p "$d" || fail "cannot make cgroup $d" || return 1
	done
}

# run_unit DROPIN: the installed unit, ExecStart the binary under test,
# DROPIN's [Service] lines added, started by systemd: a user manager of
# root's (no systemd as PID 1 needed: run by root it applies every
# sandboxing setting as the system manager does, with no user namespace)
# in a mount namespace and cgroup of its own (ns.sh), sampling at 499 Hz
# for 3 s into folded snapshots, debuginfod asked on a closed port.
# Leaves in $SD: result (Result=, ExecMainStatus=, TimeoutStartUSec=,
# MemoryMax=), status (CapBnd, NoNewPrivs, Seccomp of the running
# profile), rootfs (its / mount's options), sees (its /home, /tmp,
# /proc), err (its stderr), snapshots/, modes, cache.ls. Returns 2 in the sanitized pass: not run there.
run_unit() {
	if [ -n "${PROFILE_SANITIZED:-}" ]; then
		echo "  run in the pass on the tool as shipped: under the unit's system call filter LeakSanitizer cannot ptrace"
		return 2
	fi
	rm -rf "$SD" && mkdir -p "$SD/units/profile-snapshot.service.d" || return 1
	install_units /mnt/profile || return 1
	cp "$TMP/units/profile-snapshot.service" "$SD/units/"
	printf '[Unit]\nDescription=profile test: nothing but what is started\n' \
		> "$SD/units/profile-test.target"
	cat > "$SD/default" <<-EOF
		RATE=499
		DURATION=3
		FORMAT=folded
		DIR=/var/lib/profile
		KEEP=5
		DEBUGINFOD_URLS=http://127.0.0.1:9/
	EOF
	# The user manager's default dependencies are not the system's. Nice=0:
	# the sandbox is under test, not the scheduling; at Nice=10, on 2 CPUs
	# shared with our three busy loops and other test runs, the snapshot
	# gets too little CPU to load the tables in time (0% whole stacks).
	cat > "$SD/units/profile-snapshot.service.d/test.conf" <<-EOF
		[Unit]
		DefaultDependencies=no
		[Service]
		Nice=0
		EnvironmentFile=
		EnvironmentFile=$SD/default
		StandardOutput=file:$SD/out
		StandardError=file:$SD/err
		$1
	EOF
	write_ns_script
	cgroup_dirs || return 1
	# a shell of its own into the cgroups ($$ in a subshell is this one's)
	sh -c 'for d in $1; do echo $$ > "$d/cgroup.procs" || exit 1; done
		shift; exec unshare --mount --propagation private sh "$@"' sh "$CG_DIRS" \
		"$SD/ns.sh" "$SD" "$(cd "$(dirname "$PROFILE")" && pwd)/$(basename "$PROFILE")" \
		"$(pwd)/$W" > "$SD/ns.log" 2>&1
	rc=$?
	# the manager exits on `systemctl --user exit`
	for i in $(seq 50); do
		[ -z "$(find $CG_DIRS -name cgroup.procs -exec cat {} + 2>/dev/null)" ] && break
		sleep 0.1
	done
	cleanup_extra
	[ "$rc" -eq 0 ] || fail "the user manager: $(cat "$SD/why" "$SD/ns.log" 2>/dev/null | tail -3)" || return 1
	echo "  $(tr '\n' ' ' < "$SD/result")"
	echo "  running: $(tr '\t\n' '  ' < "$SD/status")/ mounted $(cat "$SD/rootfs")"
}

# whole_stacks COMM FILE: the percentage of COMM's samples in FILE walked
# from _start to hot_X. Frame pointers give none of hotspots_nofp's
# (faults.sh); the tables all but the first ones of a system-wide run,
# walked while the worker loads every process's: 74 to 98% of 3 s here
# (63% of 2 s outside the unit, as busy).
whole_stacks() {
	pct "$(sum_matching "^$1;_start;.*;main;run_round;hot_[abc] [0-9]+\$" "$2")" \
		"$(sum_matching "^$1;" "$2")"
}

# The hardened unit run by systemd: it takes its snapshot with exactly its
# capabilities, no new privileges and the system call filter on, on a
# read-only system, and still profiles everything whole and named: a
# program under /home run by another user (ProtectHome=, ProtectProc=),
# one in /tmp (PrivateTmp=), whose files it opens through /proc; kernel
# frames (CAP_SYSLOG, /proc/kallsyms left visible); nothing said on
# stderr. It writes where StateDirectory= and CacheDirectory= let it.
t_unit_run_by_systemd() {
	run_unit "" || { [ $? -eq 2 ] && return 0; return 1; }
	grep -q '^Result=success' "$SD/result" && grep -q '^ExecMainStatus=0' "$SD/result" ||
		fail "the service failed: $(cat "$SD/result" "$SD/err")" || return 1
	grep -q "^CapBnd:.$UNIT_CAPBND\$" "$SD/status" && grep -q '^NoNewPrivs:.1$' "$SD/status" &&
		grep -q '^Seccomp:.2$' "$SD/status" ||
		fail "not the unit's sandbox: $(cat "$SD/status")" || return 1
	grep -q '^ro,' "$SD/rootfs" || fail "/ is writable by the service: $(cat "$SD/rootfs")" || return 1
	sed 's/^/  it sees /' "$SD/sees"
	grep -qx 'home: ' "$SD/sees" && grep -qx 'tmp: private' "$SD/sees" &&
		grep -q '^proc: .*hidepid=invisible' "$SD/sees" ||
		fail "/home, /tmp or /proc not as the unit says" || return 1
	# a snapshot that hangs ends before the timer's next (10 min); memory is bounded
	! grep -Eq '^(TimeoutStartUSec|MemoryMax)=infinity$' "$SD/result" ||
		fail "unbounded: $(grep -E 'Timeout|Memory' "$SD/result")" || return 1
	[ ! -s "$SD/err" ] || fail "stderr: $(cat "$SD/err")" || return 1
	snap=$(ls "$SD/snapshots" | grep '\.folded$' | head -1)
	[ -n "$snap" ] || fail "no snapshot in /var/lib/profile: $(cat "$SD/modes")" || return 1
	grep -qx '700 /var/lib/profile' "$SD/modes" && grep -qx "600 /var/lib/profile/$snap" "$SD/modes" ||
		fail "modes: $(cat "$SD/modes")" || return 1
	f=$SD/snapshots/$snap
	home=$(whole_stacks hotspots_home "$f") tmp=$(whole_stacks hotspots_tmp "$f")
	nh=$(sum_matching '^hotspots_home;' "$f") nt=$(sum_matching '^hotspots_tmp;' "$f")
	kernel=$(sum_matching '^syscalls;.*;entry_SYSCALL_64[a-z_]*;' "$f")
	echo "  whole stacks: $home% of hotspots_home's $nh samples, $tmp% of hotspots_tmp's $nt; $kernel samples of syscalls in named kernel code"
	[ "$nh" -ge 100 ] && [ "$home" -ge 50 ] && [ "$nt" -ge 100 ] && [ "$tmp" -ge 50 ] ||
		fail "stacks of the programs in /home and /tmp: $(grep '^hotspots_' "$f" | sort -k2 -rn | head -3)" ||
		return 1
	[ "$kernel" -gt 0 ] || fail "no named kernel frame" || return 1
	grep -q '^/var/cache/profile/unwind/.' "$SD/cache.ls" && grep -qx '/var/cache/profile/debuginfod' "$SD/cache.ls" ||
		fail "/var/cache/profile: $(cat "$SD/cache.ls")" || return 1
}

# The unit with CAP_CHECKPOINT_RESTORE and CAP_SYSLOG taken out of its
# bounding set (as an admin's drop-in might): the snapshot is still taken,
# and its stderr (the journal) says in one line each what is missing.
t_unit_without_two_capabilities() {
	run_unit "CapabilityBoundingSet=
CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_PTRACE CAP_DAC_READ_SEARCH" ||
		{ [ $? -eq 2 ] && return 0; return 1; }
	sed 's/^/  stderr: /' "$SD/err"
	grep -q '^Result=success' "$SD/result" || fail "the service failed: $(cat "$SD/result")" || return 1
	grep -q '^CapBnd:.000000c000080004$' "$SD/status" ||
		fail "not the bounding set of the drop-in: $(cat "$SD/status")" || return 1
	[ -n "$(ls "$SD/snapshots")" ] || fail "no snapshot" || return 1
	grep -q '^profile: unwind tables need CAP_CHECKPOINT_RESTORE ' "$SD/err" ||
		fail "CAP_CHECKPOINT_RESTORE not named" || return 1
	# kernel.perf_event_paranoid <= 1 shows kallsyms' addresses to all (faults.sh t_no_syslog)
	shown=$(setpriv --bounding-set=-syslog awk '$1 !~ /^0+$/ { n++ } END { print n + 0 }' /proc/kallsyms)
	if [ "$shown" -gt 0 ]; then
		echo "  (this kernel shows kernel addresses without CAP_SYSLOG)"
		[ "$(grep -c . "$SD/err")" -eq 1 ] || fail "want one line" || return 1
		return 0
	fi
	[ "$(grep -c . "$SD/err")" -eq 2 ] && grep -q '^profile: kernel symbols need CAP_SYSLOG' "$SD/err" ||
		fail "want a second line naming CAP_SYSLOG" || return 1
}

run_test "make install: snapshot units verified, their command keeps KEEP" t_snapshot_units
run_test "systemd-analyze security: the unit's exposure at most $MAX_EXPOSURE" t_unit_exposure
run_shipped_test "the hardened unit run by systemd: whole named stacks from /home and /tmp, nothing said" t_unit_run_by_systemd
run_shipped_test "the unit without CAP_CHECKPOINT_RESTORE and CAP_SYSLOG: one line each" t_unit_without_two_capabilities

finish
