# Makefile for profile: BPF object -> skeleton -> userspace binary, tests.
# `make` checks/installs the Debian build dependencies first (scripts/deps.sh);
# NO_DEPS=1 skips that. V=1 shows the commands, SANITIZE=1 builds with ASan
# and UBSan.

# SANITIZE=1 builds everything, the tool too, apart from the normal objects
ifeq ($(SANITIZE),1)
OUTPUT ?= build/san
endif
OUTPUT ?= build
CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := 0.1.0

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')

PKGS := libbpf libelf zlib liblzma libdw
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lbpf -lelf -lz -llzma -ldw)

CFLAGS ?= -O2 -g
SRC_INCLUDES := -I.
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-D_GNU_SOURCE -DPROFILE_VERSION='"$(VERSION)"' -I$(OUTPUT) $(SRC_INCLUDES) $(PKG_CFLAGS)
DEPFLAGS = -MMD -MP
# libiberty (the demangler) has no pkg-config file: Debian ships only libiberty.a.
# libdebuginfod is not linked: symbols/debuginfod_fetch.c dlopen()s it (and
# libcurl with it) only for a run that has servers to ask; its header is all
# the build needs.
LDLIBS += $(PKG_LIBS) -liberty
ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
# The BPF program includes only UAPI headers (linux-libc-dev) and libbpf's:
# no vmlinux.h, so the build needs no kernel BTF. -target bpf does not look
# in the multiarch directory that holds asm/ (asm/types.h, asm/ptrace.h...).
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null || gcc -print-multiarch 2>/dev/null)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror -I. \
	$(if $(MULTIARCH),-idirafter /usr/include/$(MULTIARCH))

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Library objects: everything but main(), linked into the tool and the tests.
# The sources sit by the stage of the data path they serve: collect/ (perf
# events, the BPF maps, the aggregate), unwind/ (unwind tables for stacks
# without frame pointers), symbols/ (kernel and user symbols and the files
# they come from), output/ (the report and its writers); python/ reads
# CPython's frames (its BPF side is python/python.bpf.h); common/ holds the
# pieces two stages share (escaping, FNV, the clock, root's cache directories,
# the per-pid worker, /proc/PID/stat, a file's stamp). Includes are
# spelled from the root ("symbols/elf_read.h"): only -I. is on the path, so
# a file's dependencies on other stages read at a glance.
COLLECT_SRCS := collect/aggregate.c collect/overflow_index.c collect/map_drain.c collect/offcpu_drain.c \
	collect/map_config.c collect/sample_event.c collect/diagnose.c \
	collect/bpf_features.c collect/command.c \
	collect/cgroups.c collect/cgroup_names.c
SYMBOLS_SRCS := symbols/budget.c symbols/sha256.c symbols/elf_read.c symbols/loader.c symbols/ksyms.c symbols/kallsyms.c symbols/kallsyms_cache.c \
	symbols/proc_maps.c symbols/maps_handoff.c symbols/map_history.c symbols/elf_symtab.c symbols/elf_plt.c \
	symbols/go_pcln.c symbols/go_symbols.c symbols/go_lines.c \
	symbols/sym_nest.c symbols/usyms.c \
	symbols/usyms_procs.c symbols/usyms_modules.c symbols/usyms_jobs.c symbols/usyms_perfmaps.c \
	symbols/usyms_names.c symbols/usyms_lines.c symbols/usyms_unresolved.c symbols/usyms_sweep.c \
	symbols/rootfs.c symbols/perfmap.c symbols/demangle.c symbols/debuginfo.c symbols/debuginfo_xz.c symbols/debug_ids.c symbols/srcline.c \
	symbols/debuginfod_fetch.c symbols/debuginfod_child.c symbols/usyms_fetch.c \
	symbols/file_id.c symbols/dpkg_owner.c
OUTPUT_SRCS := output/output_format.c output/stack_fmt.c output/stack_cut.c output/report.c output/loss_report.c output/walk_tally.c output/keymap.c \
	output/report_header.c output/protobuf.c output/container_id.c output/containers.c \
	output/pathwalk.c output/outfile.c output/emit.c output/pprof.c output/flamegraph.c \
	output/speedscope.c output/progress.c output/retention.c \
	output/pf_build.c output/whole_read.c output/pb_read.c output/folded_read.c output/pprof_read.c output/from_input.c
UNWIND_SRCS := unwind/cfi_check.c unwind/cfi_table.c unwind/cfi_linear.c unwind/cfi_rows.c \
	unwind/cfi_code.c unwind/table_cache.c unwind/row_index.c unwind/row_alloc.c unwind/row_store.c \
	unwind/unwind_procs.c unwind/unwind_sweep.c unwind/proc_recs.c unwind/unwind_reading.c unwind/unwind_files.c unwind/unwind_held.c \
	unwind/unwind_jobs.c unwind/gen_seen.c unwind/vdso_image.c unwind/go_runtime.c unwind/go_pclntab.c
COMMON_SRCS := common/escape.c common/cache_dir.c common/pid_worker.c common/proc_stat.c \
	common/file_stamp.c
PYTHON_SRCS := python/py_layout.c python/py_elf.c python/py_dealloc.c python/py_files.c python/py_entry.c \
	python/py_procs.c python/py_run.c python/py_names.c python/py_linetable.c
LIB_SRCS := trace_helpers.c cli.c $(COMMON_SRCS) $(COLLECT_SRCS) $(UNWIND_SRCS) $(SYMBOLS_SRCS) $(OUTPUT_SRCS) \
	$(PYTHON_SRCS)
LIB_SRCS += cli_options.c cli_validate.c cli_suggest.c
LIB_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_OBJS := $(patsubst tests/unit/%.c,$(OUTPUT)/unit/%.o,$(UNIT_SRCS))
FIXTURES := $(OUTPUT)/fixtures/fixture_pie $(OUTPUT)/fixtures/fixture_exec \
	$(OUTPUT)/fixtures/libfixture.so \
	$(OUTPUT)/fixtures/fixture_debuglink $(OUTPUT)/fixtures/fixture_buildid \
	$(OUTPUT)/fixtures/fixture_minidebuginfo $(OUTPUT)/fixtures/fixture_zsymtab \
	$(OUTPUT)/fixtures/fixture_cxx $(OUTPUT)/fixtures/fixture_inline \
	$(OUTPUT)/fixtures/fixture_unwind \
	$(OUTPUT)/fixtures/fixture_go $(OUTPUT)/fixtures/fixture_go_stripped \
	$(OUTPUT)/fixtures/fixture_go_pie $(OUTPUT)/fixtures/fixture_go_cgo \
	$(OUTPUT)/fixtures/fixture_go_pie_stripped \
	$(OUTPUT)/fixtures/fixture_go_cgo_pie $(OUTPUT)/fixtures/fixture_go_cgo_pie_stripped \
	$(OUTPUT)/fixtures/libfixture_python.so $(OUTPUT)/fixtures/libfixture_python_skew.so \
	$(OUTPUT)/fixtures/libfixture_python_global.so $(OUTPUT)/fixtures/libfixture_python_lld.so $(OUTPUT)/fixtures/py_linetable.txt
# tests/integration/run.sh runs them from build/workloads, whatever OUTPUT is
WORKLOADS := build/workloads/hotspots build/workloads/syscalls \
	build/workloads/shortlived build/workloads/badfp \
	build/workloads/forkexec build/workloads/execburn build/workloads/dlcycle \
	build/workloads/dllate \
	build/workloads/fnvcollide \
	build/workloads/libdlburn.so build/workloads/hostile \
	build/workloads/hotspots_nofp build/workloads/hotspots_gccfp \
	build/workloads/hotspots_debugframe build/workloads/sigburn \
	build/workloads/dlswap build/workloads/libswap_a.so build/workloads/libswap_b.so \
	build/workloads/manylibs build/workloads/deeprec build/workloads/zombies \
	build/workloads/qsortburn build/workloads/drapburn \
	build/workloads/vforkburn build/workloads/sigburn_musl build/workloads/muslstart \
	build/workloads/vdsoburn build/workloads/cmdburn \
	build/workloads/offcpu build/workloads/wallhalf build/workloads/ownloop
# The tool: ./profile, or beside the sanitized objects (run.sh takes PROFILE=)
ifeq ($(SANITIZE),1)
PROFILE_BIN := $(OUTPUT)/profile
# run.sh leaves the browser rendering to the normal pass (same bytes)
integration integration-a integration-b: export PROFILE_SANITIZED = 1
# every sanitizer report fails the test, also a leak after a passing test
SAN_RUN := sh tests/san-run.sh
else
PROFILE_BIN := profile
SAN_RUN :=
endif

.DELETE_ON_ERROR:
.PHONY: all deps deps-test clean test test-build unit integration integration-a integration-b integration-shipped install deb bench check

all: $(PROFILE_BIN)

deps:
ifneq ($(NO_DEPS),1)
	$(Q)sh scripts/deps.sh build
endif

# what the tests need on top (Criterion, binutils, go, chromium...)
deps-test: deps
ifneq ($(NO_DEPS),1)
	$(Q)sh scripts/deps.sh test
endif

$(OUTPUT) $(OUTPUT)/unit $(OUTPUT)/fixtures build/workloads:
	$(Q)mkdir -p $@

$(OUTPUT)/profile.bpf.o: profile.bpf.c | deps $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/profile.skel.h: $(OUTPUT)/profile.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name profile_bpf > $@

# Objects of the tool only (they include the BPF skeleton).
TOOL_OBJS := $(OUTPUT)/profile.o $(OUTPUT)/collect/sampler.o $(OUTPUT)/collect/attach.o \
	$(OUTPUT)/collect/offcpu_attach.o
$(TOOL_OBJS): $(OUTPUT)/profile.skel.h

# The flame graph's script, kept as output/flamegraph.js, embedded as a C
# array (od and sed: no tool to install).
$(OUTPUT)/flamegraph_js.h: output/flamegraph.js | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q){ echo '/* generated from $< by the Makefile */'; \
		echo 'static const char flamegraph_js[] = {'; \
		od -An -v -tx1 $< | sed -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g' -e 's/^ *//'; \
		echo '};'; } > $@
$(OUTPUT)/output/flamegraph.o: $(OUTPUT)/flamegraph_js.h

$(OUTPUT)/%.o: %.c | deps $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/libprofile.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(PROFILE_BIN): $(TOOL_OBJS) $(OUTPUT)/libprofile.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# --- tests -----------------------------------------------------------------

# Fixtures the unit tests read: a PIE, a non-PIE executable and a shared
# library, built here with gcc so the tests never depend on a checked-in binary.
$(OUTPUT)/fixtures/libfixture.so: tests/fixtures/fixture_lib.c | $(OUTPUT)/fixtures
	$(call msg,CC,$@)
	$(Q)gcc -O1 -g -fPIC -shared -Wl,-soname,libfixture.so $< -o $@
$(OUTPUT)/fixtures/fixture_pie: tests/fixtures/fixture_prog.c $(OUTPUT)/fixtures/libfixture.so
	$(call msg,CC,$@)
	$(Q)gcc -O1 -g -fPIE -pie $< -L$(OUTPUT)/fixtures -lfixture -Wl,-rpath,'$$ORIGIN' -o $@
$(OUTPUT)/fixtures/fixture_exec: tests/fixtures/fixture_prog.c $(OUTPUT)/fixtures/libfixture.so
	$(call msg,CC,$@)
	$(Q)gcc -O1 -g -fno-PIE -no-pie $< -L$(OUTPUT)/fixtures -lfixture -Wl,-rpath,'$$ORIGIN' -o $@

# Programs whose symbols are not (all) in the file (debuginfo.c): stripped,
# with the debug file next to it by .gnu_debuglink; stripped, with the debug
# file under debugroot/.build-id/; stripped with MiniDebugInfo as Fedora
# makes it; and .symtab/.strtab compressed (SHF_COMPRESSED; the .orig it
# came from is nm's oracle: binutils cannot read it). VARIANT gives
# each its own build-id.
FIXTURE_DBG_CFLAGS := -O1 -g -rdynamic -Wl,--build-id=sha1
$(OUTPUT)/fixtures/fixture_debuglink: tests/fixtures/fixture_debuginfo.c | $(OUTPUT)/fixtures
	$(call msg,FIXTURE,$@)
	$(Q)gcc $(FIXTURE_DBG_CFLAGS) -DVARIANT=1 $< -o $@.full
	$(Q)objcopy --only-keep-debug $@.full $@.debug
	$(Q)strip -o $@.tmp $@.full && rm -f $@.full
	$(Q)objcopy --add-gnu-debuglink=$@.debug $@.tmp $@ && rm -f $@.tmp
$(OUTPUT)/fixtures/fixture_buildid: tests/fixtures/fixture_debuginfo.c | $(OUTPUT)/fixtures
	$(call msg,FIXTURE,$@)
	$(Q)gcc $(FIXTURE_DBG_CFLAGS) -DVARIANT=2 $< -o $@.full
	$(Q)id=$$(readelf -n $@.full | awk '/Build ID:/ { print $$3 }') && \
		dir=$(@D)/debugroot/.build-id/$$(echo $$id | cut -c1-2) && mkdir -p $$dir && \
		objcopy --only-keep-debug $@.full $$dir/$$(echo $$id | cut -c3-).debug
	$(Q)strip -o $@ $@.full && rm -f $@.full
$(OUTPUT)/fixtures/fixture_minidebuginfo: tests/fixtures/fixture_debuginfo.c tests/fixtures/minidebuginfo.sh | $(OUTPUT)/fixtures
	$(call msg,FIXTURE,$@)
	$(Q)gcc $(FIXTURE_DBG_CFLAGS) -DVARIANT=3 $< -o $@.full
	$(Q)sh tests/fixtures/minidebuginfo.sh $@.full $@ && rm -f $@.full
$(OUTPUT)/fixtures/fixture_zsymtab: tests/fixtures/fixture_debuginfo.c | $(OUTPUT)/fixtures
	$(call msg,FIXTURE,$@)
	$(Q)gcc $(FIXTURE_DBG_CFLAGS) -DVARIANT=4 $< -o $@.orig
	$(Q)eu-elfcompress -q -t zlib -n '@(.symtab|.strtab)' $@.orig -o $@
# Source lines and inlined frames (--lines); clang's DWARF has no .debug_aranges.
$(OUTPUT)/fixtures/fixture_inline: tests/fixtures/fixture_inline.c | $(OUTPUT)/fixtures
	$(call msg,CC,$@)
	$(Q)$(CLANG) -O2 -g $< -o $@
# Unwind rules from .eh_frame (unwind/cfi_table.c): no frame pointers, as
# Debian builds, and a PLT.
$(OUTPUT)/fixtures/fixture_unwind: tests/fixtures/fixture_unwind.c | $(OUTPUT)/fixtures
	$(call msg,CC,$@)
	$(Q)gcc -O2 -fomit-frame-pointer -fasynchronous-unwind-tables $< -o $@
# Go executables (unwind/go_runtime.c), with Debian's Go and no network:
# as go builds by default; stripped by its linker (-s -w: no .symtab, no
# .debug_frame; the first one's build-id, so the same text); a PIE (its
# function table in .data.rel.ro), and the same stripped (no unwind
# information either, another function table); cgo's, C code linked
# beside the Go text by gcc. The Go cache is kept under build/ for the next builds.
GO_ENV := HOME=$(abspath $(OUTPUT))/go-home GOCACHE=$(abspath build/go-cache) \
	GOPATH=$(abspath $(OUTPUT))/go-path GOFLAGS=-mod=mod GO111MODULE=off GOPROXY=off \
	GOTOOLCHAIN=local
GO_FIXTURE_ID := 0x676f5f6669787475726501
$(OUTPUT)/fixtures/fixture_go: tests/fixtures/fixture_go.go | $(OUTPUT)/fixtures
	$(call msg,GO,$@)
	$(Q)env $(GO_ENV) CGO_ENABLED=0 go build -ldflags '-B $(GO_FIXTURE_ID)' -o $@ $<
$(OUTPUT)/fixtures/fixture_go_stripped: tests/fixtures/fixture_go.go | $(OUTPUT)/fixtures
	$(call msg,GO,$@)
	$(Q)env $(GO_ENV) CGO_ENABLED=0 go build -ldflags '-s -w -B $(GO_FIXTURE_ID)' -o $@ $<
$(OUTPUT)/fixtures/fixture_go_pie: tests/fixtures/fixture_go.go | $(OUTPUT)/fixtures
	$(call msg,GO,$@)
	$(Q)env $(GO_ENV) CGO_ENABLED=0 go build -buildmode=pie -o $@ $<
$(OUTPUT)/fixtures/fixture_go_pie_stripped: tests/fixtures/fixture_go.go | $(OUTPUT)/fixtures
	$(call msg,GO,$@)
	$(Q)env $(GO_ENV) CGO_ENABLED=0 go build -buildmode=pie -ldflags '-s -w' -o $@ $<
$(OUTPUT)/fixtures/fixture_go_cgo: tests/fixtures/fixture_go_cgo.go | $(OUTPUT)/fixtures
	$(call msg,GO,$@)
	$(Q)env $(GO_ENV) CGO_ENABLED=1 CC=gcc go build -o $@ $<
# cgo's PIE, linked by gcc: the function table merged into .data.rel.ro
# without its name (symbols/go_symbols.c looks for it there)
$(OUTPUT)/fixtures/fixture_go_cgo_pie: tests/fixtures/fixture_go_cgo.go | $(OUTPUT)/fixtures
	$(call msg,GO,$@)
	$(Q)env $(GO_ENV) CGO_ENABLED=1 CC=gcc go build -buildmode=pie -o $@ $<
$(OUTPUT)/fixtures/fixture_go_cgo_pie_stripped: tests/fixtures/fixture_go_cgo.go | $(OUTPUT)/fixtures
	$(call msg,GO,$@)
	$(Q)env $(GO_ENV) CGO_ENABLED=1 CC=gcc go build -buildmode=pie -ldflags '-s -w' -o $@ $<
# A stand-in for libpython (python/py_elf.c): _PyRuntime, Py_Version, the eval loop.
$(OUTPUT)/fixtures/libfixture_python.so: tests/fixtures/fixture_python.c | $(OUTPUT)/fixtures
	$(call msg,CC,$@)
	$(Q)gcc -O1 -fPIC -shared $< -o $@
# ... linked by lld, which leaves a RELATIVE relocation's target 0 in the file
$(OUTPUT)/fixtures/libfixture_python_lld.so: tests/fixtures/fixture_python.c | $(OUTPUT)/fixtures
	$(call msg,CC,$@)
	$(Q)gcc -O1 -fPIC -shared -fuse-ld=lld $< -o $@
# ... whose PyCode_Type's tp_dealloc points into its function, not at its start
$(OUTPUT)/fixtures/libfixture_python_skew.so: tests/fixtures/fixture_python.c | $(OUTPUT)/fixtures
	$(call msg,CC,$@)
	$(Q)gcc -O1 -fPIC -shared -DDEALLOC_SKEW=1 $< -o $@
# ... at a function reached through a relocation to its symbol
$(OUTPUT)/fixtures/libfixture_python_global.so: tests/fixtures/fixture_python.c | $(OUTPUT)/fixtures
	$(call msg,CC,$@)
	$(Q)gcc -O1 -fPIC -shared -DDEALLOC_GLOBAL $< -o $@
# Location tables and their lines, as Debian's python3 gives them (python/py_linetable.c).
$(OUTPUT)/fixtures/py_linetable.txt: tests/fixtures/py_linetable.py | $(OUTPUT)/fixtures
	$(call msg,PY,$@)
	$(Q)python3 $< > $@.tmp && mv $@.tmp $@
# C++ names to demangle.
$(OUTPUT)/fixtures/fixture_cxx: tests/fixtures/fixture_cxx.cc | $(OUTPUT)/fixtures
	$(call msg,CXX,$@)
	$(Q)g++ -O1 -g -fPIE -pie $< -o $@

# Workloads whose exact stacks the integration tests assert: clang with frame
# pointers in leaf functions too (gcc 12 omits the leaf's frame).
WORKLOAD_CFLAGS := -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
build/workloads/%: tests/workloads/%.c | build/workloads
	$(call msg,CC,$@)
	$(Q)$(CLANG) $(WORKLOAD_CFLAGS) $(DEPFLAGS) $< -o $@
# The 5:3:2 program as Debian builds its archive: gcc -O2, no frame pointers
# (and no tail call, which would take run_round out of the stack).
build/workloads/hotspots_nofp: tests/workloads/hotspots.c | build/workloads
	$(call msg,CC,$@)
	$(Q)gcc -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls $(DEPFLAGS) $< -o $@
# With frame pointers as gcc 12 gives them: none in leaf functions.
build/workloads/hotspots_gccfp: tests/workloads/hotspots.c | build/workloads
	$(call msg,CC,$@)
	$(Q)gcc -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
		-fno-optimize-sibling-calls $(DEPFLAGS) $< -o $@
# Without frame pointers nor unwind tables: its rules only in .debug_frame
# (-g), the crt files' in .eh_frame.
build/workloads/hotspots_debugframe: tests/workloads/hotspots.c | build/workloads
	$(call msg,CC,$@)
	$(Q)gcc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-fno-optimize-sibling-calls $(DEPFLAGS) $< -o $@
# A signal handler's stack, through the signal frame, without frame pointers.
build/workloads/sigburn: tests/workloads/sigburn.c | build/workloads
	$(call msg,CC,$@)
	$(Q)gcc -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls $(DEPFLAGS) $< -o $@
# The same, static with musl: its libc has no CFI (__restore_rt, _start).
build/workloads/sigburn_musl: tests/workloads/sigburn.c | build/workloads
	$(call msg,CC,$@)
	$(Q)musl-gcc -static -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls $(DEPFLAGS) $< -o $@
# Calls into the vDSO from code without frame pointers.
build/workloads/vdsoburn: tests/workloads/vdsoburn.c | build/workloads
	$(call msg,CC,$@)
	$(Q)$(CLANG) -O2 -g -fomit-frame-pointer $(DEPFLAGS) $< -o $@
# musl's _start into a __libc_start_main of its own (no TLS: no stack protector).
build/workloads/muslstart: tests/workloads/muslstart.c | build/workloads
	$(call msg,CC,$@)
	$(Q)musl-gcc -static -O2 -fno-stack-protector -fomit-frame-pointer -fno-optimize-sibling-calls \
		$(DEPFLAGS) $< -o $@
# Libraries swapped at one address, and many mappings: as Debian builds,
# no frame pointers, so the walk needs the right tables.
NOFP_CFLAGS := -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls
build/workloads/dlswap build/workloads/manylibs build/workloads/deeprec build/workloads/drapburn \
		build/workloads/vforkburn: build/workloads/%: tests/workloads/%.c | build/workloads
	$(call msg,CC,$@)
	$(Q)gcc $(NOFP_CFLAGS) $(DEPFLAGS) $< -o $@
# Its own loop, in a process that maps libraries it never calls.
build/workloads/ownloop: tests/workloads/ownloop.c | build/workloads
	$(call msg,CC,$@)
	$(Q)gcc $(NOFP_CFLAGS) $(DEPFLAGS) $< -o $@ -Wl,--no-as-needed -lz -llzma -lstdc++ -lm
build/workloads/libswap_a.so: tests/workloads/libswap.c | build/workloads
	$(call msg,CC,$@)
	$(Q)gcc $(NOFP_CFLAGS) -fPIC -shared $(DEPFLAGS) $< -o $@
build/workloads/libswap_b.so: tests/workloads/libswap.c | build/workloads
	$(call msg,CC,$@)
	$(Q)gcc $(NOFP_CFLAGS) -DSWAP_BIG_FRAME -fPIC -shared $(DEPFLAGS) $< -o $@
build/workloads/lib%.so: tests/workloads/lib%.c | build/workloads
	$(call msg,CC,$@)
	$(Q)$(CLANG) $(WORKLOAD_CFLAGS) $(DEPFLAGS) -fPIC -shared $< -o $@

$(FIXTURES) $(WORKLOADS): | deps-test
$(OUTPUT)/unit/%.o: tests/unit/%.c | deps-test $(OUTPUT)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Wno-unused-parameter $(DEPFLAGS) -DFIXTURE_DIR='"$(abspath $(OUTPUT)/fixtures)"' -c $< -o $@

$(OUTPUT)/unit_tests: $(UNIT_OBJS) $(OUTPUT)/libprofile.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -lcriterion -o $@

unit: $(OUTPUT)/unit_tests $(FIXTURES)
	$(SAN_RUN) $(OUTPUT)/unit_tests --jobs 2

# The integration suites in two lanes of about equal time (each about 6
# minutes on the ASan build): make check runs them at once (-j2, each
# lane's output printed whole when it ends), `make integration` one after
# the other. A lane keeps together the suites whose tests could see each
# other's: system-wide runs counting a workload by its comm (hotspots_nofp:
# faults, hostile, unwind; pyhot: the python suites) and workloads pinned
# to CPU 0 (run.sh's -C, offcpu.sh's --include-runnable).
integration: integration-a integration-b

integration-a: $(PROFILE_BIN) $(WORKLOADS) | deps-test
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/hostile.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/unwind.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/faults.sh
	PROFILE=./$(PROFILE_BIN) LSAN_OPTIONS=suppressions=$(abspath tests/lsan-libdw.supp):print_suppressions=0 \
		$(SAN_RUN) sh tests/integration/python.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/python_debian.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/python_procs.sh

integration-b: $(PROFILE_BIN) $(WORKLOADS) | deps-test
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/run.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/offcpu.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/symbols.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/processes.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/debuginfod.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/command.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/unwind_rules.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/go_symbols.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/service.sh
	PROFILE=./$(PROFILE_BIN) $(SAN_RUN) sh tests/integration/containers.sh
	PROFILE=./$(PROFILE_BIN) sh tests/integration/package.sh
	sh tests/integration/deps.sh

test: unit integration

# The tests whose bounds (time, memory) and rendering hold for the tool as
# shipped, declared with run_shipped_test: check runs them on ./profile.
integration-shipped: profile $(WORKLOADS) | deps-test
	SHIPPED_ONLY=1 PROFILE=./profile sh tests/integration/run.sh
	SHIPPED_ONLY=1 PROFILE=./profile sh tests/integration/symbols.sh
	SHIPPED_ONLY=1 PROFILE=./profile sh tests/integration/debuginfod.sh
	SHIPPED_ONLY=1 PROFILE=./profile sh tests/integration/processes.sh
	SHIPPED_ONLY=1 PROFILE=./profile sh tests/integration/hostile.sh
	SHIPPED_ONLY=1 PROFILE=./profile sh tests/integration/service.sh
	SHIPPED_ONLY=1 PROFILE=./profile sh tests/integration/package.sh

# What the tests run, so that it can be built two jobs at a time before
# the tests run (they sample the machine: under make check, one at a time
# but for the two lanes of integration suites).
test-build: $(PROFILE_BIN) $(OUTPUT)/unit_tests $(FIXTURES) $(WORKLOADS)

# Everything CI runs, about 10 minutes on 2 cores (HACKING.md): the bounds
# and rendering tests on the tool as shipped, then fuzzing, then every unit
# and integration test with the sanitizers, the integration suites in two
# lanes at once (but the shipped ones just run, except hostile.sh's:
# tests/ci-extra.sh). Behaviour is checked once, on the sanitized build (same -O2,
# and ASan and UBSan see more); bounds on time and memory are checked on
# ./profile, where ASan's slowdown and shadow memory would not hide a
# regression. Under check, a unit test that needs something of the
# machine (root, tmpfs, /dev/full, a vDSO, readable kallsyms) fails where
# it would skip.
check: export PROFILE_CI = 1
check:
	$(call check_phase,the tool built,$(MAKE) -j2 profile $(WORKLOADS))
	$(call check_phase,ASan build,$(MAKE) -j2 test-build SANITIZE=1)
	$(call check_phase,shipped tests,$(MAKE) integration-shipped)
	sh tests/ci-extra.sh

# $(call check_phase,WHAT,COMMAND): COMMAND shown, run, and its time said
check_phase = @echo '$(2)'; t=$$(date +%s); $(2) && echo "check: $(1) in $$(($$(date +%s) - t)) s"

# profile vs perf and bpftrace on bench/workloads (root; QUICK=1 for a short run)
bench: profile
	sh bench/run.sh

# The tool, its man page, its bash completion, the snapshot service and
# timer with their settings in /etc/default/profile (an existing one is
# left as it is), and README.md with docs/ under DOCDIR.
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
# README.md and docs/, as the README links them
DOCDIR ?= $(PREFIX)/share/doc/profile
install: profile
	install -D -m 0755 profile $(DESTDIR)$(PREFIX)/sbin/profile
	install -D -m 0644 profile.8 $(DESTDIR)$(PREFIX)/share/man/man8/profile.8
	install -D -m 0644 dist/profile.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/profile
	install -d $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' dist/profile-snapshot.service.in \
		> $(DESTDIR)$(SYSTEMD_UNIT_DIR)/profile-snapshot.service
	chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/profile-snapshot.service
	install -m 0644 dist/profile-snapshot.timer $(DESTDIR)$(SYSTEMD_UNIT_DIR)/
	[ -e $(DESTDIR)/etc/default/profile ] || \
		install -D -m 0644 dist/default $(DESTDIR)/etc/default/profile
	install -d $(DESTDIR)$(DOCDIR)/docs
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md docs/flamegraph.png docs/flamegraph.svg $(DESTDIR)$(DOCDIR)/docs/

# The Debian package (debian/): dpkg-buildpackage on a copy of the tree in
# build/deb/src, so that what it leaves (the .deb, .buildinfo, .changes in
# the parent directory, debian/profile/...) stays under build/deb.
DEB_DIR := build/deb
deb:
ifneq ($(NO_DEPS),1)
	$(Q)sh scripts/deps.sh deb
endif
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/src
	$(Q)tar -c --exclude=./build --exclude=./profile --exclude=./.git . | tar -x -C $(DEB_DIR)/src
	$(call msg,DEB,$(DEB_DIR))
	$(Q)cd $(DEB_DIR)/src && dpkg-buildpackage -b --no-sign -J$$(nproc) > ../build.log 2>&1 || \
		{ tail -30 ../build.log; echo "deb: dpkg-buildpackage failed, see $(DEB_DIR)/build.log" >&2; exit 1; }
	$(Q)ls $(DEB_DIR)/*.deb

clean:
	rm -rf $(OUTPUT) profile

# --- fuzzing -----------------------------------------------------------------

# libFuzzer harnesses (tests/fuzz/) for every parser of outside input, linked
# with the library objects rebuilt with ASan+UBSan in build/fuzz/obj. `make
# fuzz FUZZ_SECONDS=N` runs each over tests/fuzz/regressions/<name>/, then
# fuzzes it N seconds from build/fuzz/corpus/<name>/ (seeded by
# tests/fuzz/seeds.sh); a crash, leak or hang fails (tests/fuzz/run.sh).
# -j2 runs two at once.
FUZZ_SECONDS ?= 30
FUZZ_OUT := build/fuzz
FUZZ_NAMES := elf_mem elf_fd debuginfo unxz map_entry proc_maps ksyms perfmap cli cfi gopclntab \
	py_elf py_names container_id from_input
FUZZ_LIB_SRCS := trace_helpers.c cli.c common/file_stamp.c common/proc_stat.c symbols/budget.c symbols/sha256.c symbols/file_id.c \
	symbols/elf_read.c symbols/ksyms.c \
	symbols/proc_maps.c symbols/elf_symtab.c symbols/elf_plt.c symbols/sym_nest.c \
	symbols/rootfs.c symbols/perfmap.c \
	symbols/debuginfo.c symbols/debuginfo_xz.c symbols/debug_ids.c common/escape.c output/output_format.c output/outfile.c output/emit.c output/pathwalk.c output/retention.c collect/sample_event.c \
	unwind/cfi_check.c unwind/cfi_table.c unwind/cfi_linear.c unwind/cfi_rows.c unwind/cfi_code.c \
	symbols/go_pcln.c symbols/go_symbols.c symbols/go_lines.c unwind/go_pclntab.c unwind/go_runtime.c python/py_elf.c python/py_dealloc.c python/py_names.c \
	python/py_linetable.c output/container_id.c output/keymap.c output/protobuf.c output/pprof.c output/pf_build.c \
	output/whole_read.c output/pb_read.c output/folded_read.c output/pprof_read.c
FUZZ_LIB_SRCS += cli_options.c cli_validate.c cli_suggest.c collect/cgroups.c
FUZZ_LIB_OBJS := $(patsubst %.c,$(FUZZ_OUT)/obj/%.o,$(FUZZ_LIB_SRCS))
FUZZ_BINS := $(patsubst %,$(FUZZ_OUT)/fuzz_%,$(FUZZ_NAMES))
FUZZ_RUNS := $(patsubst %,fuzz-run-%,$(FUZZ_NAMES))
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-D_GNU_SOURCE -DPROFILE_VERSION='"$(VERSION)"' $(SRC_INCLUDES) -Itests/fuzz $(PKG_CFLAGS)
.PHONY: fuzz fuzz-build $(FUZZ_RUNS)

$(FUZZ_OUT)/obj $(FUZZ_OUT)/harness:
	$(Q)mkdir -p $@
$(FUZZ_OUT)/obj/%.o: %.c | deps-test $(FUZZ_OUT)/obj
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(FUZZ_OUT)/harness/%.o: tests/fuzz/%.c | deps-test $(FUZZ_OUT)/harness
	$(call msg,CC-FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(FUZZ_OUT)/libfuzzlib.a: $(FUZZ_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(FUZZ_OUT)/fuzz_%: $(FUZZ_OUT)/harness/fuzz_%.o $(FUZZ_OUT)/libfuzzlib.a
	$(call msg,LINK,$@)
	$(Q)$(CLANG) -fsanitize=fuzzer,address,undefined $^ $(PKG_LIBS) -o $@
$(FUZZ_OUT)/corpus/.seeded: tests/fuzz/seeds.sh $(FIXTURES)
	$(call msg,SEEDS,$(FUZZ_OUT)/corpus)
	$(Q)sh tests/fuzz/seeds.sh $(FUZZ_OUT)/corpus $(OUTPUT)/fixtures && touch $@

fuzz-build: $(FUZZ_BINS)
.SECONDARY: $(patsubst %,$(FUZZ_OUT)/harness/fuzz_%.o,$(FUZZ_NAMES))
$(FUZZ_RUNS): fuzz-run-%: $(FUZZ_OUT)/fuzz_% $(FUZZ_OUT)/corpus/.seeded
	$(Q)sh tests/fuzz/run.sh $* $(FUZZ_SECONDS) $(FUZZ_OUT)
fuzz: $(FUZZ_RUNS)

-include $(wildcard $(FUZZ_OUT)/obj/*.d $(FUZZ_OUT)/obj/*/*.d $(FUZZ_OUT)/harness/*.d)

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/*/*.d build/workloads/*.d)
