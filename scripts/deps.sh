#!/bin/sh
# deps.sh [build|deb|test|list] - make sure the Debian packages that build profile
# (with "deb", its Debian package; with "test", run its tests) are
# installed. As root it installs what is missing with apt-get; otherwise it
# prints the exact command to run and fails.
set -u

# linux-libc-dev: the UAPI headers the BPF program is built from (no kernel BTF);
# libdebuginfod-dev: the header, and the library dlopen()ed at run time
BUILD_PACKAGES="make gcc clang llvm bpftool libbpf-dev linux-libc-dev libelf-dev zlib1g-dev pkg-config liblzma-dev libiberty-dev libdw-dev libdebuginfod-dev"
# `make deb`: dpkg-buildpackage and dh (the Build-Depends are BUILD_PACKAGES)
DEB_PACKAGES="dpkg-dev debhelper"
# what the tests, fixtures, fuzzers and output checks use on top; the
# package test (tests/integration/package.sh) builds the .deb, runs lintian
# and installs it in a chroot made by mmdebstrap; lld: PLTs as lld lays
# them out (tests/unit/test_elf_plt.c); the unwinder's tests run Debian's
# openssl and build static programs with musl-gcc; python3.11-dbg: the
# DWARF the Python layouts are checked against (tests/unit/test_py_layout.c);
# python3-dev: a program embedding libpython (tests/integration/python.sh)
TEST_PACKAGES="linux-perf libcriterion-dev binutils xz-utils g++ lld elfutils golang-go libxml2-utils python3 util-linux protobuf-compiler jq libclang-rt-14-dev chromium systemd $DEB_PACKAGES lintian mmdebstrap eatmydata bash-completion man-db strace npm debuginfod time openssl musl-tools python3.11-dbg python3-dev"

case "${1:-build}" in
build) PACKAGES=$BUILD_PACKAGES ;;
deb) PACKAGES="$BUILD_PACKAGES $DEB_PACKAGES" ;;
test) PACKAGES="$BUILD_PACKAGES $TEST_PACKAGES" ;;
# the packages of every list, a line each: for tests/integration/deps.sh
list) printf '%s\n' $BUILD_PACKAGES $DEB_PACKAGES $TEST_PACKAGES; exit 0 ;;
*) echo "usage: deps.sh [build|deb|test|list]" >&2; exit 2 ;;
esac

# Names installed packages provide: NodeSource's nodejs provides npm and
# conflicts with Debian's, which apt would otherwise put in its place.
provided=$(dpkg-query -W -f='${db:Status-Abbrev}|${Provides}\n' 2>/dev/null |
	awk -F'|' '$1 ~ /^ii/ { n = split($2, p, ", ")
		for (i = 1; i <= n; i++) { sub(/ .*/, "", p[i]); print p[i] } }')

missing=""
for p in $PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$status" in
	*"install ok installed"*) ;;
	*) printf '%s\n' "$provided" | grep -qx -- "$p" || missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: missing packages:$missing (no apt-get here: install them with your package manager)" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages; run: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has empty package lists: update once, then install.
if ! apt-get install -y -q $missing >&2; then
	apt-get update -q >&2 && apt-get install -y -q $missing >&2 || {
		echo "deps: apt-get install$missing failed" >&2
		exit 1
	}
fi
