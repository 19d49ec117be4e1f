#!/bin/sh
# deps.sh - every program the tests run comes from a package a newcomer's
# Debian 12 has: one of scripts/deps.sh's lists (or what they pull in), or
# one that every Debian system has (Essential or Priority required). A
# program installed here by earlier work, and used by a test, fails this
# before it fails on a fresh machine. Prints "deps: N passed, N failed".
set -u

SUITE=deps
. "$(dirname "$0")/lib.sh"

# Words parsed as commands that are no command the tests run (an awk
# variable, a word of a message), yet name a program on some machines.
NOT_COMMANDS="ed pc"

# "PATH PACKAGE" for each of the paths on stdin that a package ships, read
# from dpkg's file lists in one pass (dpkg -S is a tenth of a second a
# call); a diverted file is its diverter's. With usrmerge, /usr/bin/x may
# be listed as /bin/x: both are looked for.
packages_of() {
	awk 'FILENAME == "-" {
			want[$0] = $0
			alt = $0; sub(/^\/usr/, "", alt); want[alt] = $0
			next
		}
		FILENAME ~ /diversions$/ {
			# three lines a diversion: the file, where it went, who diverted it
			d = (FNR - 1) % 3
			if (d == 0) file = $0
			else if (d == 2 && file in want) print want[file], $0
			next
		}
		$0 in want {
			pkg = FILENAME; sub(/.*\//, "", pkg); sub(/\.list$/, "", pkg); sub(/:.*/, "", pkg)
			print want[$0], pkg
		}' - /var/lib/dpkg/diversions /var/lib/dpkg/info/*.list | sort -u -k1,1
}

t_test_programs_come_from_listed_packages() {
	sh scripts/deps.sh list > "$TMP/listed"
	# what the lists pull in, and what every Debian system has
	apt-cache depends --recurse --installed --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $(cat "$TMP/listed") 2> /dev/null |
		grep -v '^ ' > "$TMP/pulled"
	# (a minimal Debian is these: their dependencies are of the same priority)
	dpkg-query -W -f='${Package} ${Essential} ${Priority}\n' |
		awk '$2 == "yes" || $3 == "required" { print $1 }' > "$TMP/base"
	# a package that provides a listed name stands for it (NodeSource's nodejs: npm)
	dpkg-query -W -f='${db:Status-Abbrev}|${Package}|${Provides}\n' |
		awk -F'|' 'NR == FNR { listed[$1] = 1; next }
			$1 ~ /^ii/ { n = split($3, p, ", ")
				for (i = 1; i <= n; i++) { sub(/ .*/, "", p[i]); if (p[i] in listed) print $2 } }' \
			"$TMP/listed" - > "$TMP/providers"
	sort -u "$TMP/listed" "$TMP/pulled" "$TMP/base" "$TMP/providers" > "$TMP/ok"
	awk -f tests/integration/deps/commands.awk tests/integration/*.sh tests/*.sh | sort -u > "$TMP/words"
	while read -r w; do
		case " $NOT_COMMANDS " in *" $w "*) continue ;; esac
		case $w in
		/*) p=$w ;;
		*) p=$(sh -c "command -v '$w'" 2> /dev/null) ;;
		esac
		case $p in /*) [ -x "$p" ] && echo "$p" && readlink -f "$p" ;; esac
	done < "$TMP/words" | sort -u | packages_of > "$TMP/owned"
	# a program no package ships is ours, or built by the tests
	n=$(wc -l < "$TMP/owned")
	awk 'NR == FNR { ok[$1] = 1; next } !($2 in ok) { print $1 " (package " $2 ")" }' \
		"$TMP/ok" "$TMP/owned" > "$TMP/bad"
	echo "  $n programs run by the tests, $(wc -l < "$TMP/bad") from packages no list has"
	[ "$n" -gt 40 ] || fail "only $n programs found: the parse is broken" || return 1
	[ ! -s "$TMP/bad" ] || fail "add their packages to scripts/deps.sh: $(tr '\n' ' ' < "$TMP/bad")" || return 1
}

run_test "programs the tests run come from packages scripts/deps.sh installs" t_test_programs_come_from_listed_packages
finish
