# debian_lib.sh - bare roots of other Debian releases for the integration
# suites (python_debian.sh, go_symbols.sh), sourced after lib.sh: made by
# mmdebstrap from this machine's Debian mirror, kept in $PACKAGE_CACHE
# (default /var/cache/profile-tests), named after the mirror, suite,
# packages and architecture, made again when a week old.

CACHE=${PACKAGE_CACHE:-/var/cache/profile-tests}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# debian_mirror: the URI this machine's apt takes Debian from
debian_mirror() {
	codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v c="$codename" 'BEGIN { RS = "" }
			$0 ~ "(^|\n)Suites:[^\n]*[ \t]" c "([ \t\n]|$)" {
				if (match($0, /URIs:[ \t]*[^ \t\n]+/)) { u = substr($0, RSTART, RLENGTH)
					sub(/URIs:[ \t]*/, "", u); print u; exit } }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v c="$codename" '$1 == "deb" && $3 == c { print $2 }' "$f"
	done
}

# debian_root SUITE PACKAGE [OPTIONAL...]: in $ROOT a bare SUITE with
# PACKAGE, and each OPTIONAL package the suite has; made by mmdebstrap
# unless kept and less than a week old. $ROOT_KIND (default python) starts
# its name in the cache.
debian_root() {
	suite=$1 pkg=$2
	shift 2
	mirror=$(debian_mirror | head -1)
	[ -n "$mirror" ] || fail "no Debian mirror in /etc/apt" || return 1
	key=$(echo "$mirror $suite $pkg $* $(dpkg --print-architecture)" | cksum | cut -d' ' -f1)
	ROOT=$CACHE/${ROOT_KIND:-python}-$suite-$key
	mkdir -p "$CACHE"
	find "$CACHE" -maxdepth 1 -name "${ROOT_KIND:-python}-*.ok" -mtime +7 -delete
	find "$CACHE" -maxdepth 1 -name "${ROOT_KIND:-python}-*.new.*" -mmin +60 -exec rm -rf {} +
	if [ -f "$ROOT.ok" ] && [ -x "$ROOT/usr/bin/apt-get" ]; then
		echo "  $suite from $ROOT"
		return 0
	fi
	rm -rf "$ROOT" "$ROOT.ok"
	new=$ROOT.new.$$
	# sid's Release may be past its Valid-Until on a mirror kept at a date
	mmdebstrap --mode=root --format=directory --variant=apt --include="$pkg" \
		--aptopt='Acquire::Check-Valid-Until "false"' --skip=cleanup/apt/lists \
		--hook-dir=/usr/share/mmdebstrap/hooks/eatmydata \
		"$suite" "$new" "deb [signed-by=$KEYRING] $mirror $suite main" \
		> "$TMP/mmdebstrap-$suite.log" 2>&1 ||
		{ rm -rf "$new"; fail "mmdebstrap $suite: $(tail -1 "$TMP/mmdebstrap-$suite.log")"; return 1; }
	for o in "$@"; do
		chroot "$new" apt-cache show "$o" > /dev/null 2>&1 || continue
		chroot "$new" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$o" \
			> "$TMP/apt-$o.log" 2>&1 ||
			{ rm -rf "$new"; fail "apt-get install $o in $suite: $(tail -1 "$TMP/apt-$o.log")"; return 1; }
	done
	mv -T "$new" "$ROOT" 2>/dev/null || rm -rf "$new"
	touch "$ROOT.ok"
	echo "  $suite made by mmdebstrap --variant=apt with $pkg $*, kept in $ROOT"
}
