#!/bin/sh
# bare-debian.sh [DIR] - the README's two commands, as a newcomer runs them:
# in a bare Debian 12 root (mmdebstrap --variant=minbase with
# build-essential, git and ca-certificates; this machine's apt sources and
# settings, CA certificates and npm settings copied in), a fresh clone of
# this repository's HEAD, then `make && ./profile -F 99 5` and `make check`
# as root in a mount namespace whose root it is, with the host's /proc,
# /sys and /dev. A package that some earlier work left on this machine,
# and a test relies on, is missing there. Needs root, mmdebstrap, the
# mirror and about 15 minutes; the root
# is made afresh in DIR (default /var/tmp/profile-bare) and removed after,
# unless KEEP=1.
set -eu
[ "$(id -u)" -eq 0 ] || { echo "bare-debian: run as root" >&2; exit 1; }
command -v mmdebstrap > /dev/null || { echo "bare-debian: needs mmdebstrap (apt-get install mmdebstrap)" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/.." && pwd)
root=${1:-/var/tmp/profile-bare}
[ ! -e "$root" ] || { echo "bare-debian: $root exists; remove it or name another" >&2; exit 1; }
start=$(date +%s)

cleanup() {
	[ "${KEEP:-0}" = 1 ] || rm -rf --one-file-system "$root"
}
trap cleanup EXIT INT TERM

echo "bare-debian: making a bare bookworm in $root"
# this machine's sources (a .sources file or sources.list is a mirror to mmdebstrap)
mmdebstrap --mode=root --format=directory --variant=minbase \
	--include=build-essential,git,ca-certificates bookworm "$root" \
	$(ls /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2> /dev/null) > "$root.log" 2>&1 ||
	{ tail -3 "$root.log" >&2; exit 1; }
rm -f "$root.log"
# what this machine's network needs: its mirror, its apt settings, its CAs, npm's registry
cp -a /etc/apt/sources.list.d/. "$root/etc/apt/sources.list.d/" 2> /dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/"
cp -a /etc/apt/apt.conf.d/. "$root/etc/apt/apt.conf.d/"
cp -a /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/" 2> /dev/null || true
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
for f in /etc/npmrc /usr/etc/npmrc /root/.npmrc; do
	[ -f "$f" ] && mkdir -p "$root$(dirname "$f")" && cp "$f" "$root$f"
done
git clone -q "$repo" "$root/root/profile"

# Run a command in the root, in /root/profile, as in a container: a mount
# namespace whose root it is (pivot_root, not chroot: the kernel lets no
# chrooted process make a user namespace, which a test needs), with the
# host's /proc, /sys and /dev; its mounts go with the namespace.
in_root() {
	unshare --mount --propagation private sh -ec '
		root=$1
		mount --rbind "$root" "$root"
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mkdir -p "$root/.oldroot"
		cd "$root"
		pivot_root . .oldroot
		umount -l /.oldroot
		rmdir /.oldroot
		cd /root/profile
		exec sh -c "$2"' sh "$root" "$1"
}

echo "bare-debian: make && ./profile -F 99 5"
in_root 'make && ./profile -F 99 5 > /dev/null'
echo "bare-debian: make check"
in_root 'make check'
echo "bare-debian: passed in $(($(date +%s) - start)) s"
