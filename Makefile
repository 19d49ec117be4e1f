# Makefile for profile: BPF object -> skeleton -> userspace binary, tests.
# `make` checks/installs the Debian build dependencies first (scripts/deps.sh);
# NO_DEPS=1 skips that. V=1 shows the commands, SANITIZE=1 builds with ASan
# and UBSan.

OUTPUT ?= build
CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
PREFIX ?= /usr/local
DESTDIR ?=
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
VERSION := 0.1.0

ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')

PKGS := libbpf libelf zlib
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null || echo -lbpf -lelf -lz)

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-missing-field-initializers \
	-D_GNU_SOURCE -DPROFILE_VERSION='"$(VERSION)"' -I$(OUTPUT) -I. $(PKG_CFLAGS)
DEPFLAGS = -MMD -MP
LDLIBS += $(PKG_LIBS)
ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror -I$(OUTPUT) -I.

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Library objects: everything but main(), linked into the tool and the tests.
LIB_SRCS := trace_helpers.c cli.c ksyms.c proc_maps.c elf_symtab.c usyms.c stack_fmt.c aggregate.c report.c keymap.c protobuf.c escape.c outfile.c pprof.c flamegraph.c speedscope.c
LIB_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_OBJS := $(patsubst tests/unit/%.c,$(OUTPUT)/unit/%.o,$(UNIT_SRCS))
FIXTURES := $(OUTPUT)/fixtures/fixture_pie $(OUTPUT)/fixtures/fixture_exec \
	$(OUTPUT)/fixtures/libfixture.so
WORKLOADS := $(OUTPUT)/workloads/hotspots $(OUTPUT)/workloads/syscalls \
	$(OUTPUT)/workloads/shortlived

.DELETE_ON_ERROR:
.PHONY: all deps clean test unit integration install

all: profile

deps:
ifneq ($(NO_DEPS),1)
	$(Q)sh scripts/deps.sh
endif

$(OUTPUT) $(OUTPUT)/unit $(OUTPUT)/fixtures $(OUTPUT)/workloads:
	$(Q)mkdir -p $@

$(OUTPUT)/vmlinux.h: | deps $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)test -r $(VMLINUX_BTF) || { echo "error: no kernel BTF at $(VMLINUX_BTF): the kernel needs CONFIG_DEBUG_INFO_BTF=y" >&2; exit 1; }
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUTPUT)/profile.bpf.o: profile.bpf.c profile.h $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/profile.skel.h: $(OUTPUT)/profile.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name profile_bpf > $@

# Objects of the tool only (they include the BPF skeleton).
TOOL_OBJS := $(OUTPUT)/profile.o $(OUTPUT)/sampler.o
$(TOOL_OBJS): $(OUTPUT)/profile.skel.h

$(OUTPUT)/%.o: %.c | deps $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/libprofile.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

profile: $(TOOL_OBJS) $(OUTPUT)/libprofile.a
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

# Workloads whose exact stacks the integration tests assert: clang with frame
# pointers in leaf functions too (gcc 12 omits the leaf's frame).
WORKLOAD_CFLAGS := -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
$(OUTPUT)/workloads/%: tests/workloads/%.c | $(OUTPUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CLANG) $(WORKLOAD_CFLAGS) $< -o $@

$(OUTPUT)/unit/%.o: tests/unit/%.c | deps $(OUTPUT)/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Wno-unused-parameter $(DEPFLAGS) -DFIXTURE_DIR='"$(abspath $(OUTPUT)/fixtures)"' -c $< -o $@

$(OUTPUT)/unit_tests: $(UNIT_OBJS) $(OUTPUT)/libprofile.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -lcriterion -o $@

unit: $(OUTPUT)/unit_tests $(FIXTURES)
	$(OUTPUT)/unit_tests --jobs 2

integration: profile $(WORKLOADS)
	sh tests/integration/run.sh

test: unit integration

install: profile
	install -D -m 0755 profile $(DESTDIR)$(PREFIX)/sbin/profile
	install -D -m 0644 profile.8 $(DESTDIR)$(PREFIX)/share/man/man8/profile.8

clean:
	rm -rf $(OUTPUT) profile

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/unit/*.d)
