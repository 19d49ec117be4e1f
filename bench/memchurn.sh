#!/bin/sh
# memchurn.sh exec|mapfile SECS [PROFILE ARGS...] - the RSS of a system-wide
# `profile -F 49 -i 1 ARGS` while another user (uid 65534) churns fresh
# files, one a second column:
#   exec     runs fresh copies of a program with 20,000 functions, 150 ms
#            each (as tests/integration/hostile.sh t_exec_churn_memory)
#   mapfile  maps fresh copies of a 33 MB file of 1 M function symbols
#            (tests/integration/tools/bigsymtab.py), 1 s each
# Each copy has one symbol renamed, so no two share a table. Copies live
# on a tmpfs (/dev/shm), whose inode numbers are not reused. PROFILE=
# names the binary (./profile). Root needed. Prints the RSS (KiB) each
# second, the copies made and the -v line on files read.
set -u
mode=$1
secs=$2
shift 2
PROFILE=${PROFILE:-./profile}
NOBODY=65534
d=$(mktemp -d /dev/shm/memchurn.XXXXXX)
chmod 755 "$d"
trap 'kill $churn $prof 2> /dev/null; wait 2> /dev/null; rm -rf "$d"' EXIT
if [ "$mode" = exec ]; then
	sh tests/workloads/manyfn.sh "$d/orig" || exit 1
	off=$(($(grep -obUa many_id_AAAAAAAA "$d/orig" | cut -d: -f1) + 8))
	run='./c$i 150'
else
	python3 tests/integration/tools/bigsymtab.py "$d/orig" 1000000 || exit 1
	off=$(($(grep -obUa f0000000 "$d/orig" | head -n 1 | cut -d: -f1) + 1))
	run="$(pwd)/build/workloads/hostile mapfile c\$i 1"
fi
chown -R $NOBODY:$NOBODY "$d"
$PROFILE -F 49 -v -i 1 -f -o "$d/%H%M%S.folded" --keep 2 "$@" 3600 2> "$d/err" &
prof=$!
sleep 1
setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups sh -c 'cd "$1" && i=0 && while :; do
	cp orig c$i && printf %07d $i | dd of=c$i bs=1 seek=$2 conv=notrunc 2> /dev/null &&
	'"$run"'; rm -f c$((i - 4)); i=$((i + 1)); echo $i > runs; done' sh "$d" "$off" &
churn=$!
for s in $(seq "$secs"); do
	sleep 1
	printf '%s ' "$(awk '/^VmRSS:/ { print $2 }' /proc/$prof/status)"
done
echo
kill $churn
wait $churn 2> /dev/null
kill -INT $prof
wait $prof
echo "$(cat "$d/runs") copies; $(grep -o '[0-9]* ELF files read[^,]*' "$d/err")"
