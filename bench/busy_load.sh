# busy_load.sh - the busy host of bench/busyhost.sh and bench/steady.sh,
# sourced (bash): python3 loops and a compile loop (gcc's driver, cc1, as,
# sh, ls, sort: new processes all the time, cc1's 478,000-row table).

# busy_load_start DIR NPYTHON: the loops, their pids appended to WL; files
# in DIR, whose compile-loop busy_load_stop kills
busy_load_start() {
	local dir=$1 i
	cp bench/workloads/bw_cpu.c bench/workloads/bw_common.h "$dir/"
	cat > "$dir/compile-loop" << LOOP
#!/bin/sh
while :; do
	gcc -O2 -c "$dir/bw_cpu.c" -o "$dir/bw_cpu.o"
	sh -c 'ls /usr/bin | sort | uniq | wc -l' > /dev/null
done
LOOP
	chmod +x "$dir/compile-loop"
	for i in $(seq "$2"); do
		python3 -c 'while True: pass' & WL="$WL $!"
	done
	"$dir/compile-loop" > /dev/null 2>&1 & WL="$WL $!"
	sleep 1
}

# busy_load_stop DIR: the loops of WL, and the compile loop's children
busy_load_stop() {
	[ -n "$WL" ] && kill $WL 2> /dev/null
	pkill -f "$1/compile-loop" 2> /dev/null
	wait 2> /dev/null
}
