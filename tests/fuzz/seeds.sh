#!/bin/sh
# seeds.sh CORPUS_DIR FIXTURE_DIR - the seed corpus of every fuzz harness,
# from real inputs of each format: this machine's /proc files, the ELF
# fixtures the unit tests build, /bin/true, a generated perf map. Run by
# `make fuzz` into build/fuzz/corpus/<harness>/; the fuzzer adds to it.
set -eu
corpus=$1
fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for h in elf_mem elf_fd debuginfo unxz map_entry proc_maps ksyms perfmap cli cfi gopclntab \
	py_elf py_names container_id from_input; do
	mkdir -p "$corpus/$h"
done

# --- ELF files: every fixture, plus a system binary and a stripped copy ---
is_elf() {
	[ -f "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]
}
for f in "$fixtures"/* /bin/true; do
	is_elf "$f" || continue
	n=$(basename "$f")
	for h in elf_mem elf_fd debuginfo py_elf; do
		cp "$f" "$corpus/$h/$n"
	done
done
if is_elf "$fixtures/fixture_pie"; then
	strip -o "$tmp/stripped" "$fixtures/fixture_pie"
	objcopy --only-keep-debug "$fixtures/fixture_pie" "$tmp/debugonly"
	for h in elf_mem elf_fd debuginfo; do
		cp "$tmp/stripped" "$corpus/$h/fixture_pie.stripped"
		cp "$tmp/debugonly" "$corpus/$h/fixture_pie.debug"
	done
fi

# --- .eh_frame (cfi): the frameless fixture whole and cut down to its CFI, a
# compiler's object file, a static musl program (no CFI in its libc), and
# every rule and augmentation the table knows of (or refuses) written by
# hand: small files, so mutations hit the CFI ---
for f in "$fixtures/fixture_unwind" /bin/true; do
	is_elf "$f" || continue
	cp "$f" "$corpus/cfi/$(basename "$f")"
	objcopy -j .eh_frame -j .eh_frame_hdr "$f" "$corpus/cfi/$(basename "$f").eh_frame" 2>/dev/null
done
printf 'int g(int);\nint f(int x) { int a[100]; for (int i = 0; i < 100; i++) a[i] = g(x + i); return a[x & 63] + g(a[3]); }\n' > "$tmp/t.c"
gcc -O2 -fomit-frame-pointer -c "$tmp/t.c" -o "$corpus/cfi/object.o"
printf 'int main(void) { return 0; }\n' > "$tmp/m.c"
musl-gcc -O2 -static -s "$tmp/m.c" -o "$corpus/cfi/musl_static"
cat > "$tmp/rules.s" <<'ASM'
	.text
	.globl _start
_start:				# the root: ra undefined
	.cfi_startproc
	.cfi_undefined rip
	call fp_frame
	hlt
	.cfi_endproc
fp_frame:			# a frame pointer, a personality and an LSDA (zPLR)
	.cfi_startproc
	.cfi_personality 0x0, pers
	.cfi_lsda 0x3, lsda
	push %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	mov %rsp, %rbp
	.cfi_def_cfa_register rbp
	call sp_frame
	leave
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc
sp_frame:			# a big frame, remembered state, rules with no compact form
	.cfi_startproc
	sub $70000, %rsp
	.cfi_adjust_cfa_offset 70000
	.cfi_remember_state
	add $70000, %rsp
	.cfi_adjust_cfa_offset -70000
	ret
	.cfi_restore_state
	.cfi_register rip, rax
	nop
	.cfi_def_cfa r12, 8
	nop
	.cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06
	nop
	.cfi_endproc
	.p2align 4
plt:				# the PLT's CFA expression
	.cfi_startproc
	.cfi_escape 0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22
	pushq 0(%rip)
	jmp *0(%rip)
	.cfi_endproc
sig:				# a signal frame (zRS)
	.cfi_startproc
	.cfi_signal_frame
	nop
	.cfi_endproc
drap:				# gcc's DRAP, OpenSSL's CFA read, __vfork's ra in rdi
	.cfi_startproc
	lea 8(%rsp), %r10
	.cfi_def_cfa r10, 0
	push %rbp
	.cfi_escape 0x10, 0x06, 0x02, 0x76, 0x00
	mov %rsp, %rbp
	.cfi_escape 0x0f, 0x03, 0x76, 0x70, 0x06
	nop
	.cfi_escape 0x0f, 0x05, 0x77, 0x28, 0x06, 0x23, 0x08
	nop
	.cfi_def_cfa rsp, 0
	.cfi_register rip, rdi
	ret
	.cfi_endproc
	.p2align 4
	nop			# rt_sigreturn without an FDE (musl's __restore_rt)
tramp:	mov $15, %rax
	syscall
	.p2align 5
pers:	ret
	.data
lsda:	.quad 0
ASM
gcc -nostdlib -static -Wl,--eh-frame-hdr "$tmp/rules.s" -o "$tmp/rules"
cp "$tmp/rules" "$corpus/cfi/rules"
objcopy -j .eh_frame -j .eh_frame_hdr "$tmp/rules" "$corpus/cfi/rules.eh_frame" 2>/dev/null
# the same rules in .debug_frame alone, and in both sections
for sections in .debug_frame '.eh_frame, .debug_frame'; do
	name=$(echo "$sections" | tr -d ' ,.')
	{ printf '\t.cfi_sections %s\n' "$sections"; cat "$tmp/rules.s"; } > "$tmp/rules_$name.s"
	gcc -nostdlib -static "$tmp/rules_$name.s" -o "$tmp/rules_$name"
	objcopy -j .eh_frame -j .debug_frame "$tmp/rules_$name" "$corpus/cfi/rules.$name" 2>/dev/null
done

# --- xz streams (MiniDebugInfo); the first byte picks the output cap ---
xz_seed() {	# NAME CAPBYTE < stream
	{ printf "\\$(printf %03o "$2")"; cat; } > "$corpus/unxz/$1"
}
if is_elf "$fixtures/fixture_minidebuginfo"; then
	objcopy --dump-section .gnu_debugdata="$tmp/gnu_debugdata.xz" "$fixtures/fixture_minidebuginfo" "$tmp/discard"
	xz_seed gnu_debugdata 23 < "$tmp/gnu_debugdata.xz"	# 8 MiB cap: inflates
	xz_seed gnu_debugdata.small-cap 10 < "$tmp/gnu_debugdata.xz"	# 1 KiB: -EFBIG
fi
echo "profile" | xz -c > "$tmp/text.xz"
xz_seed text 23 < "$tmp/text.xz"
cat "$tmp/text.xz" "$tmp/text.xz" | xz_seed concatenated 23	# LZMA_CONCATENATED
head -c 4096 /bin/true | xz -c -0 --check=none | xz_seed check-none 23
head -c 4096 /bin/true | xz -c -6 --check=sha256 | xz_seed check-sha256 23
: | xz -c | xz_seed empty 23

# --- /proc/PID/maps: whole files, single lines, the kernel's odd cases ---
cat /proc/self/maps > "$corpus/proc_maps/self"
cat /proc/1/maps > "$corpus/proc_maps/init" 2>/dev/null || true
cat > "$corpus/proc_maps/odd" <<'MAPS'
55d0c0a00000-55d0c0a21000 r-xp 00001000 fd:01 1234567                    /usr/bin/with space (deleted)
7ffd3b5e1000-7ffd3b5e3000 r-xp 00000000 00:00 0                          [vdso]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]
7f0000000000-7f0000001000 r-xp 00000000 103:02 18446744073709551615      /deleted (deleted)
7f0000001000-7f0000002000 rwxp 00000000 00:00 0 
MAPS
i=0
while IFS= read -r line && [ $i -lt 12 ]; do
	printf '%s\n' "$line" > "$corpus/map_entry/self.$i"
	i=$((i + 1))
done < /proc/self/maps
i=0
while IFS= read -r line; do
	printf '%s\n' "$line" > "$corpus/map_entry/odd.$i"
	i=$((i + 1))
done < "$corpus/proc_maps/odd"

# --- kallsyms: the head, module symbols, as seen with kptr_restrict ---
head -n 500 /proc/kallsyms > "$corpus/ksyms/head"
grep -m 300 '\[' /proc/kallsyms > "$corpus/ksyms/modules" || true
head -n 200 /proc/kallsyms | sed 's/^[0-9a-f]*/0000000000000000/' > "$corpus/ksyms/restricted"

# --- cgroup paths (container_id): each runtime's, and near misses ---
id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
printf '/system.slice/docker-%s.scope' "$id" > "$corpus/container_id/docker"
printf '/kubepods/burstable/pod1/%s' "$id" > "$corpus/container_id/kubepods"
printf '/kubepods.slice/a.slice/cri-containerd-%s.scope' "$id" > "$corpus/container_id/cri"
printf '/machine.slice/libpod-%s.scope/container' "$id" > "$corpus/container_id/podman"
printf '/machine.slice/machine-my\\x2dbox.scope' > "$corpus/container_id/machine"
printf '/user.slice/user-0.slice/session-1.scope' > "$corpus/container_id/session"

# --- perf maps as JITs write them ---
cat > "$corpus/perfmap/jit" <<'PERF'
7f3a1c000000 40 Interpreter
0x7f3a1c000040 1a0 LambdaForm$MH/0x0000000800c0d000.invoke(Object, Object)
7F3A1C000100 100 overlaps the one before: written last, wins
7f3a1c000400	0x80	tab separated
7f3a1c000500 0 zero size: skipped
ffffffffffffff00 100 wraps: skipped
PERF
printf '7f3a1c000600 20 crlf line\r\n' >> "$corpus/perfmap/jit"
printf '7f00 10 a\n7f08 10 b\n7f00 4 c' > "$corpus/perfmap/partial-last-line"

# --- command lines (arguments separated by NUL bytes) ---
cli_seed() {	# NAME ARGS...
	n=$1
	shift
	: > "$corpus/cli/$n"
	first=1
	for a in "$@"; do
		[ $first -eq 1 ] || printf '\0' >> "$corpus/cli/$n"
		printf '%s' "$a" >> "$corpus/cli/$n"
		first=0
	done
}
cli_seed freq -F 99 30
cli_seed count -c 1000000 10
cli_seed pids -p 185,186 -U
cli_seed tids -L 190 -K -f -d -a
cli_seed long --frequency=49 --stack-storage-size 65536 --hash-storage-size=100000 --perf-max-stack-depth 64 5
cli_seed output -o 'p-%H%M%S.pb.gz' -i 1 -q --format pprof 3
cli_seed debug --debug-dir /usr/lib/debug --debug-dir=/opt/dbg --no-demangle --lines -C 1 -I -v
cli_seed help -p 1 --help
cli_seed version --version
cli_seed bad -U -K 12abc

# --- Go's function table (gopclntab): the sections of the Go fixtures, and
# the stripped ones whole (cgo's PIE: the table inside .data.rel.ro) ---
for f in "$fixtures"/fixture_go*; do
	is_elf "$f" || continue
	case ${f##*/} in
	fixture_go_stripped | fixture_go_cgo_pie_stripped) cp "$f" "$corpus/gopclntab/" ;;
	esac
	for sec in .gopclntab .data.rel.ro.gopclntab; do
		if objcopy -O binary --only-section="$sec" "$f" "$tmp/pcln" 2>/dev/null && [ -s "$tmp/pcln" ]; then
			cp "$tmp/pcln" "$corpus/gopclntab/$(basename "$f")$sec"
		fi
	done
done

# --- Python: names records as the BPF side sends them (py_bpf.h's struct
# py_name_event: 432 bytes), of each kind of str, and one cut short ---
python3 - "$corpus/py_names" <<'PY'
import struct, sys
d = sys.argv[1]
def rec(pid, gen, id, first, name, nkind, file, fkind):
    def enc(s, k):
        return s.encode({1: "latin-1", 2: "utf-16-le", 4: "utf-32-le"}[k])
    nb, fb = enc(name, nkind)[:128], enc(file, fkind)[:256]
    return (struct.pack("<IIQQiI", pid, gen, id | 3 << 62, 0x7f00dead, first, 0) +
            struct.pack("<IHBB", len(name), len(nb), nkind, nkind == 1) +
            struct.pack("<IHBB", len(file), len(fb), fkind, fkind == 1) +
            nb.ljust(128, b"\0") + fb.ljust(256, b"\0"))
open(d + "/ascii", "wb").write(rec(1, 1, 7, 10, "Worker.run", 1, "/srv/app/hot.py", 1))
open(d + "/kinds", "wb").write(rec(1, 1, 8, 1, "caf\xe9", 1, "\u043b.py", 2) +
                               rec(1, 1, 9, 2, "\U0001f600", 4, "x" * 300, 1))
open(d + "/short", "wb").write(rec(2, 1, 1, 1, "f", 1, "g.py", 1)[:100])
PY

# --- --from: the first byte picks the reader (even folded, odd pprof) and
# the limits; folded lines as profile -f -d -a, BCC and stackcollapse-perf
# write them, and a small pprof profile, gzip'd and not ---
{ printf '\376'; printf 'app;main;hot_a 5\ncat;read;-;do_syscall_64_[k];vfs_read_[k] 2\n'
  printf 'perl;main_[j];inl_[i] 1\r\n\napp;main;hot_a 7\n'; } > "$corpus/from_input/folded"
{ printf '\000'; printf 'a;b 1\na;;b 2\na;b 1.5\na;b 1 2\n'; } > "$corpus/from_input/malformed"
python3 - "$corpus/from_input" <<'PY'
import gzip, sys
d = sys.argv[1]
def varint(v):
    out = b""
    while True:
        b = v & 0x7f
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out
def field(n, v):
    if isinstance(v, bytes):
        return varint(n << 3 | 2) + varint(len(v)) + v
    return varint(n << 3) + varint(v)
strs = ["", "samples", "count", "cpu", "nanoseconds", "main", "hot_a", "/bin/app",
        "[kernel.kallsyms]", "do_syscall_64", "comm", "app", "pid", "work", "/srv/a.py"]
p = field(1, field(1, 1) + field(2, 2)) + field(1, field(1, 3) + field(2, 4))
p += field(2, field(1, varint(2) + varint(1)) + field(2, varint(5) + varint(50)) +
           field(3, field(1, 10) + field(2, 11)) + field(3, field(1, 12) + field(3, 42)))
p += field(2, field(1, varint(3) + varint(4)) + field(2, varint(2) + varint(20)))
p += field(3, field(1, 1) + field(5, 7) + field(6, 6)) + field(3, field(1, 2) + field(5, 8))
p += field(4, field(1, 1) + field(2, 1) + field(3, 0x1000) + field(4, field(1, 1)))
p += field(4, field(1, 2) + field(2, 1) + field(3, 0x1100) + field(4, field(1, 2)) + field(4, field(1, 1)))
p += field(4, field(1, 3) + field(2, 2) + field(3, 0xffffffff81000000) + field(4, field(1, 3)))
p += field(4, field(1, 4) + field(4, field(1, 4) + field(2, 12)))
p += field(5, field(1, 1) + field(2, 5) + field(4, 7)) + field(5, field(1, 2) + field(2, 6))
p += field(5, field(1, 3) + field(2, 9) + field(4, 8)) + field(5, field(1, 4) + field(2, 13) + field(4, 14) + field(5, 10))
p += field(9, 1700000000000000000) + field(10, 2000000000) + field(11, field(1, 3) + field(2, 4)) + field(12, 10000000)
p += b"".join(field(6, s.encode()) for s in strs)
open(d + "/pprof", "wb").write(b"\xff" + p)
open(d + "/pprof.gz", "wb").write(b"\xff" + gzip.compress(p))
PY
