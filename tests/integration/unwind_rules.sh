#!/bin/sh
# unwind_rules.sh - whole user stacks where the CFI goes beyond rsp and rbp
# plus an offset (a CFA in another register, read from the stack; a
# return address in a register), where the code must say what the CFI
# does not (musl's __restore_rt and _start), and in the vDSO: each a real
# binary whose samples are in that case, walked in BPF with the unwind
# tables (--call-graph dwarf). Root needed; prints "unwind_rules: N
# passed, N failed" last.
set -u

SUITE=unwind_rules
. "$(dirname "$0")/lib.sh"

# gcc keeps the CFA of a function that realigns its stack (a 64-byte
# aligned local and a VLA) in its frame, *(rbp - 16), and rbp where rbp
# points: its callee's samples go on through it to _start. By frame
# pointers (its frame looks like one) the walk goes wrong at its caller.
t_realigned_stack() {
	start $W/drapburn 30
	pid=$LAST
	sleep 0.3
	profile_pid drap "$pid" -U || return 1
	stop "$pid"
	whole_share drap '^drapburn;' '^drapburn;_start;.*;main;run;realigned(;burn)? [0-9]+$' 300 \
		"samples from _start through realigned"
}

# glibc's __vfork pops its return address into rdi (DW_CFA_register):
# the parent's samples in the vfork system call go on from __vfork to
# spawn, main and _start, read from the registers at kernel entry.
t_return_address_in_a_register() {
	start $W/vforkburn 30
	pid=$LAST
	sleep 0.3
	profile_pid vf "$pid" || return 1
	stop "$pid"
	whole_share vf '^vforkburn;([^;]*;)*__vfork(;| )' '^vforkburn;_start;.*;main;spawn;__vfork(;| )' 100 \
		"samples in __vfork from _start"
}

# Debian's openssl, its assembly as written: AES-CTR keeps its CFA in r11
# for the whole loop, known at the leaf from the sample's registers. The
# leaf's samples go on through EVP to __libc_start_main (openssl is
# stripped: its own frames are [openssl]); without the rule they stop at
# the leaf.
t_openssl_cfa_in_a_register() {
	grep -qw aes /proc/cpuinfo || fail "this CPU has no AES-NI: aesni_ctr32_encrypt_blocks does not run" || return 1
	start openssl enc -aes-128-ctr -pass pass:x -pbkdf2 -in /dev/zero -out /dev/null
	pid=$LAST
	sleep 0.5
	profile_pid aes "$pid" -U || return 1
	stop "$pid"
	leaf='\[libcrypto\.so\.3\] [0-9]+$'
	whole_share aes "^openssl;(.*;)?$leaf" "^openssl;[^;]+;__libc_start_main;.*;$leaf" 150 \
		"samples in libcrypto's unnamed code from __libc_start_main" || return 1
	ctr=$(sum_matching "^openssl;[^;]+;__libc_start_main;.*;CRYPTO_ctr128_encrypt_ctr32;$leaf" "$TMP/aes.folded")
	echo "  $ctr of them in AES"
	[ "$ctr" -gt 150 ] || fail "only $ctr AES samples whole"
}

# openssl's SHA-512 reads its CFA from its frame, *(rsp + N) + 8: the
# hashing's samples (of /dev/zero, endless) go on to __libc_start_main.
t_openssl_cfa_read_from_the_frame() {
	start openssl dgst -sha512 /dev/zero
	pid=$LAST
	sleep 0.5
	profile_pid sha "$pid" -U || return 1
	stop "$pid"
	leaf='\[libcrypto\.so\.3\] [0-9]+$'
	whole_share sha "^openssl;(.*;)?$leaf" "^openssl;[^;]+;__libc_start_main;.*;$leaf" 300 \
		"samples in libcrypto's unnamed code from __libc_start_main" || return 1
	sha512=$(sum_matching "^openssl;[^;]+;__libc_start_main;.*;SHA512_Update;$leaf" "$TMP/sha.folded")
	echo "  $sha512 of them in SHA-512"
	[ "$sha512" -gt 300 ] || fail "only $sha512 SHA-512 samples whole"
}

# musl's __restore_rt has no FDE (Debian's musl has no CFI at all): the
# trampoline, found by its code (mov $15, %rax; syscall), steps over the
# signal frame, so the handler's samples go on into main;spin. (They end
# at libc_start_main_stage2, musl's C code without CFI nor frame pointer.)
t_musl_signal_frame() {
	start $W/sigburn_musl 30
	pid=$LAST
	sleep 0.3
	profile_pid sigm "$pid" -U || return 1
	stop "$pid"
	whole_share sigm ';on_prof;in_handler [0-9]+$' \
		'^sigburn_musl;(.*;)?main;spin;[^;]+;on_prof;in_handler [0-9]+$' 50 \
		"samples in the handler that go on to main;spin"
}

# musl's _start (crt1.o) has no FDE: a walk that reaches it ends there as
# at the thread's root, not cut short (-v counts those; a cut also asks
# for the mappings to be read again). muslstart gives _start a caller
# with CFI: musl's own __libc_start_main has none.
t_musl_start_is_a_root() {
	start $W/muslstart
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 999 -f -v -p "$pid" 2 > "$TMP/ms.folded" 2> "$TMP/ms.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/ms.err")" || return 1
	stop "$pid"
	all=$(sum_matching '^muslstart;' "$TMP/ms.folded")
	whole=$(sum_matching '^muslstart;[^;]+;__libc_start_main;main;work [0-9]+$' "$TMP/ms.folded")
	line=$(grep 'user stacks walked by them' "$TMP/ms.err")
	walked=$(echo "$line" | sed -E 's/.*: ([0-9]+) user stacks walked.*/\1/')
	cut=$(echo "$line" | sed -E 's/.*\(([0-9]+) ended before.*/\1/')
	echo "  $whole of $all samples from _start; $cut of $walked walks ended before the root"
	[ "$all" -gt 300 ] && [ "$(pct "$whole" "$all")" -ge 90 ] || fail "stacks not from _start" || return 1
	[ "$walked" -gt 300 ] && [ "$(pct "$cut" "$walked")" -lt 10 ] || fail "_start ended the walks as a cut" || return 1
}

# The vDSO's .eh_frame is in the image the kernel maps into every
# process: its table, built from our own, walks a [vdso] that holds the
# same bytes. clang -O2 code without frame pointers calling into it:
# clock_gettime (the vDSO keeps a frame there, but for a few
# instructions), time and getcpu (frameless leaves, where a frame-pointer
# walk goes wrong) all reach _start through main.
t_vdso() {
	start $W/vdsoburn 30
	pid=$LAST
	sleep 0.3
	$PROFILE -U -F 999 -f -v -p "$pid" 3 > "$TMP/vdso.folded" 2> "$TMP/vdso.err" ||
		fail "profile exited $?: $(tail -2 "$TMP/vdso.err")" || return 1
	stop "$pid"
	for f in in_clock:__vdso_clock_gettime in_time:__vdso_time in_getcpu:__vdso_getcpu; do
		caller=${f%:*} leaf=${f#*:}
		all=$(sum_matching ";$leaf [0-9]+\$" "$TMP/vdso.folded")
		whole=$(sum_matching "^vdsoburn;_start;.*;main;$caller;(.*;)?$leaf [0-9]+\$" "$TMP/vdso.folded")
		echo "  $leaf: $whole of $all samples from _start through main;$caller"
		[ "$all" -gt 40 ] || fail "only $all samples in $leaf" || return 1
		[ "$(pct "$whole" "$all")" -ge 90 ] ||
			fail "$leaf's stacks cut: $(grep "$leaf" "$TMP/vdso.folded" | sort -t' ' -k2 -rn | head -2)" || return 1
	done
	grep -Eq '[1-9][0-9]* processes'"'"' \[vdso\] given the vDSO'"'"'s table' "$TMP/vdso.err" ||
		fail "-v counts no [vdso] with the vDSO's table: $(grep vdso "$TMP/vdso.err")" || return 1
}

run_test "gcc's stack realignment: the CFA read from the frame" t_realigned_stack
run_test "__vfork: the return address in a register" t_return_address_in_a_register
run_test "Debian's openssl, AES-CTR: a CFA in r11 at the leaf" t_openssl_cfa_in_a_register
run_test "Debian's openssl, SHA-512: a CFA read from the frame" t_openssl_cfa_read_from_the_frame
run_test "musl: __restore_rt without CFI, found by its code" t_musl_signal_frame
run_test "musl: _start without an FDE is the thread's root" t_musl_start_is_a_root
run_test "[vdso]: walked with the vDSO's own table" t_vdso
finish
