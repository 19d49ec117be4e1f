#!/bin/sh
# package.sh - the Debian package (debian/, `make deb`): built, checked by
# lintian, installed with apt-get into a bare Debian made by mmdebstrap from
# this machine's Debian mirror (apt resolves the Depends), run there, and
# purged. Root needed (chroot, mounts, BPF); the mirror must be reachable.
# Prints "package: N passed, N failed" last.
#
# The bare system is kept in $PACKAGE_CACHE (default
# /var/cache/profile-tests), named after its sources, variant and
# architecture, made again when a week old; each run works on an overlay
# of it, so the kept one stays bare.
set -u

SUITE=package
. "$(dirname "$0")/lib.sh"
# a signal must still run the EXIT trap: it unmounts the chroot
trap 'exit 1' INT TERM HUP

CACHE=${PACKAGE_CACHE:-/var/cache/profile-tests}
VARIANT=apt	# Essential: yes and apt, nothing more: every library comes from Depends
ROOT=$TMP/root
# lintian tags we accept, comma-separated (docs/packaging.md, *Debian package*); none now
LINTIAN_SUPPRESS=""

cleanup_extra() {
	for m in "$ROOT/sys" "$ROOT/proc" "$ROOT"; do
		mountpoint -q "$m" 2>/dev/null || continue
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	# rm -rf "$TMP" comes next: never through a mount
	if grep -Eq " $ROOT(/| )" /proc/self/mounts; then
		echo "package: still mounted under $ROOT, left in place" >&2
		TMP=
	fi
}

# debian_sources FILE: the entries of this machine's apt sources for its
# own release (bookworm, bookworm-updates, bookworm-security), deb822 and
# one-line alike; others (third-party repositories) would need their keys
debian_sources() {
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	: > "$1"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v c="$codename" 'BEGIN { RS = ""; ORS = "\n\n" }
			$0 ~ "(^|\n)Suites:[^\n]*[ \t]" c "([- \t\n]|$)" { print }' "$f" >> "$1"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		grep -E "^deb[ \t].*[ \t]$codename(-[a-z]+)?[ \t]" "$f" >> "$1"
	done
	[ -s "$1" ] || fail "no apt source for $codename in /etc/apt"
}

# bare_system: a fresh bare system at $ROOT: an overlay over the cached
# one (nothing copied, every write in $TMP), made by mmdebstrap when there
# is none, when it is a week old, or left half made by a run killed mid-way
bare_system() {
	debian_sources "$TMP/debian.sources" || return 1
	key=$({ cat "$TMP/debian.sources"; echo "$VARIANT $(dpkg --print-architecture)"; } |
		cksum | cut -d' ' -f1)
	base=$CACHE/bare-$(. /etc/os-release && echo "$VERSION_CODENAME")-$VARIANT-$key
	mkdir -p "$CACHE" "$ROOT" "$TMP/upper" "$TMP/work"
	find "$CACHE" -maxdepth 1 -name 'bare-*.ok' -mtime +7 -delete
	find "$CACHE" -maxdepth 1 -name 'bare-*.new.*' -mmin +60 -exec rm -rf {} +
	if [ -f "$base.ok" ] && [ -x "$base/usr/bin/apt-get" ]; then
		echo "  bare system from $base"
	else
		rm -rf "$base" "$base.ok"
		# lists kept: apt-get in the chroot resolves Depends without an
		# update; dpkg without fsync (eatmydata, gone from the result): 30% faster
		mmdebstrap --mode=root --format=directory --variant=$VARIANT --skip=cleanup/apt/lists \
			--hook-dir=/usr/share/mmdebstrap/hooks/eatmydata \
			"$(. /etc/os-release && echo "$VERSION_CODENAME")" "$base.new.$$" "$TMP/debian.sources" \
			> "$TMP/mmdebstrap.log" 2>&1 ||
			{ rm -rf "$base.new.$$"; fail "mmdebstrap: $(tail -1 "$TMP/mmdebstrap.log")"; return 1; }
		# another run may have been quicker: then its copy is as good
		mv -T "$base.new.$$" "$base" 2>/dev/null || rm -rf "$base.new.$$"
		touch "$base.ok"
		echo "  bare system made by mmdebstrap --variant=$VARIANT, kept in $base"
	fi
	mount -t overlay overlay -o "lowerdir=$base,upperdir=$TMP/upper,workdir=$TMP/work" "$ROOT" 2> /dev/null || {
		echo "  no overlay here: copying it"
		cp -a "$base/." "$ROOT" || fail "cannot copy $base" || return 1
	}
}

# why LOG: the line that says why apt-get failed
why() {
	grep -m1 '^E:' "$1" || tail -1 "$1"
}

in_root() {
	chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"
}

# What the package ships: the paths `dpkg -c` must list.
SHIPPED="usr/sbin/profile usr/share/man/man8/profile.8.gz
	lib/systemd/system/profile-snapshot.service lib/systemd/system/profile-snapshot.timer
	etc/default/profile usr/share/bash-completion/completions/profile
	usr/share/doc/profile/copyright usr/share/doc/profile/README.md.gz
	usr/share/doc/profile/docs/output.md.gz usr/share/doc/profile/docs/packaging.md.gz
	usr/share/doc/profile/docs/symbols.md.gz"

t_deb() {
	if [ -n "${PROFILE_SANITIZED:-}" ]; then
		echo "  checked once, in the pass on the tool as shipped"
		return 0
	fi
	t0=$(date +%s%N)
	make -s deb > "$TMP/deb.log" 2>&1 || fail "make deb: $(tail -1 "$TMP/deb.log")" || return 1
	deb=$(ls build/deb/profile_*.deb 2>/dev/null | head -1)
	[ -n "$deb" ] || fail "make deb made no build/deb/profile_*.deb" || return 1
	echo "  $deb ($(elapsed_since "$t0"))"

	# contents and control fields
	dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./||' > "$TMP/contents"
	for f in $SHIPPED; do
		grep -qx "$f" "$TMP/contents" || fail "the package lacks /$f" || return 1
	done
	dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles 2>/dev/null | grep -qx /etc/default/profile ||
		fail "/etc/default/profile is not a conffile" || return 1
	depends=$(dpkg-deb -f "$deb" Depends)
	echo "  Depends: $depends"
	for lib in libbpf1 libc6 libelf1; do
		echo "$depends" | grep -q "$lib" || fail "Depends lacks $lib (dh_shlibdeps): $depends" || return 1
	done
	mkdir -p "$TMP/x" && dpkg-deb -x "$deb" "$TMP/x"
	version=$("$TMP/x/usr/sbin/profile" --version | awk '{ print $2; exit }')
	[ "$version" = "$(dpkg-deb -f "$deb" Version)" ] ||
		fail "package version $(dpkg-deb -f "$deb" Version), profile --version $version" || return 1

	# lintian (no error, no warning but those accepted above) runs while
	# the bare system is made and the package installed
	lintian --fail-on error,warning ${LINTIAN_SUPPRESS:+--suppress-tags "$LINTIAN_SUPPRESS"} \
		"$deb" > "$TMP/lintian.log" 2>&1 &
	lintian=$!
	PIDS="$PIDS $lintian"

	# the completion knows every option --help names, and --format's values
	comp=$TMP/x/usr/share/bash-completion/completions/profile
	for o in $("$TMP/x/usr/sbin/profile" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$o\\b" "$comp" || fail "the bash completion lacks $o" || return 1
	done
	got=$(bash -c '. /usr/share/bash-completion/bash_completion && . "$1" &&
		COMP_WORDS=(profile --format ""); COMP_CWORD=2; COMP_LINE="profile --format "
		COMP_POINT=${#COMP_LINE}; _profile; echo "${COMPREPLY[*]}"' sh "$comp")
	[ "$got" = "text folded pprof svg json" ] ||
		fail "completing 'profile --format ' gives '$got'" || return 1

	# installed into a bare system by apt, Depends from the mirror
	t0=$(date +%s%N)
	bare_system || return 1
	echo "  bare system ready ($(elapsed_since "$t0"))"
	t0=$(date +%s%N)
	cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
	cp "$deb" "$ROOT/tmp/"
	in_root apt-get install -y -q "/tmp/${deb##*/}" > "$TMP/apt.log" 2>&1 || {
		# the kept lists may name versions the mirror no longer has
		in_root apt-get update -q >> "$TMP/apt.log" 2>&1 &&
			in_root apt-get install -y -q "/tmp/${deb##*/}" >> "$TMP/apt.log" 2>&1
	} || fail "apt-get install in the bare system: $(why "$TMP/apt.log")" || return 1
	echo "  installed with $(grep -c '^Unpacking' "$TMP/apt.log") packages ($(elapsed_since "$t0"))"
	for f in $SHIPPED; do
		[ -f "$ROOT/$f" ] || fail "/$f not installed" || return 1
	done
	page=$(man -w -M "$ROOT/usr/share/man" 8 profile 2>/dev/null) ||
		fail "man -w finds no profile(8) in /usr/share/man" || return 1
	for s in FILES ENVIRONMENT; do
		zcat "$page" | grep -qx "\.SH $s" || fail "the installed profile(8) has no $s section" || return 1
	done
	# the unit service.sh scores and runs under systemd, as make install has it
	sed 's|@SBINDIR@|/usr/sbin|' dist/profile-snapshot.service.in |
		cmp -s - "$ROOT/lib/systemd/system/profile-snapshot.service" ||
		fail "the package's profile-snapshot.service is not dist/'s with ExecStart=/usr/sbin/profile" ||
		return 1
	state=$(systemctl --root="$ROOT" is-enabled profile-snapshot.timer 2>&1)
	[ "$state" = disabled ] || fail "profile-snapshot.timer is '$state' after install, want disabled" || return 1

	# the installed tool profiles the machine from the chroot
	mount -t proc proc "$ROOT/proc" && mount -t sysfs sysfs "$ROOT/sys" ||
		fail "cannot mount /proc and /sys in the chroot" || return 1
	start sh -c 'while :; do :; done'
	busy=$LAST
	t0=$(date +%s%N)
	in_root profile -F 99 1 > "$TMP/run.out" 2> "$TMP/run.err" ||
		fail "profile in the chroot exited $?: $(tail -1 "$TMP/run.err")" || return 1
	stop "$busy"
	echo "  $(grep -cE '^ +- +.* \([0-9]+\)$' "$TMP/run.out") stacks printed ($(elapsed_since "$t0"))"
	grep -qE "^ +- +sh \($busy\)$" "$TMP/run.out" ||
		fail "no stack of the busy loop (sh, pid $busy) in the chroot's profile" || return 1

	wait "$lintian"
	rc=$?
	grep -v 'running with root privileges' "$TMP/lintian.log" > "$TMP/lintian.tags"
	sed 's/^/  lintian: /' "$TMP/lintian.tags"
	[ "$rc" -eq 0 ] || fail "lintian (exit $rc): $(head -1 "$TMP/lintian.tags")" || return 1
	echo "  lintian clean"

	# the admin's choice outlives an upgrade (here a reinstall)
	t0=$(date +%s%N)
	systemctl --root="$ROOT" enable profile-snapshot.timer > /dev/null 2>&1 &&
		in_root apt-get install -y -q --reinstall "/tmp/${deb##*/}" > "$TMP/re.log" 2>&1 ||
		fail "enable and reinstall: $(why "$TMP/re.log")" || return 1
	state=$(systemctl --root="$ROOT" is-enabled profile-snapshot.timer 2>&1)
	[ "$state" = enabled ] || fail "profile-snapshot.timer is '$state' after an upgrade, want enabled" || return 1
	echo "  enabled timer still enabled after reinstall ($(elapsed_since "$t0"))"

	# purge takes everything but the admin's snapshots, and the timer's state
	t0=$(date +%s%N)
	in_root apt-get purge -y -q profile > "$TMP/purge.log" 2>&1 ||
		fail "apt-get purge: $(why "$TMP/purge.log")" || return 1
	for f in $SHIPPED; do
		[ ! -e "$ROOT/$f" ] || fail "/$f left after purge" || return 1
	done
	[ ! -e "$ROOT/var/cache/profile" ] || fail "/var/cache/profile left after purge" || return 1
	[ ! -L "$ROOT/etc/systemd/system/timers.target.wants/profile-snapshot.timer" ] ||
		fail "the timer is still enabled after purge" || return 1
	echo "  purged ($(elapsed_since "$t0"))"
}

run_shipped_test "make deb: lintian clean, installs with apt in a bare Debian, runs, purges" t_deb

finish
