# pathscope: XDP/tc packet-path instrumentation. `make help` lists the targets.
CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
BUILD    := build
ARCH     := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS   ?= -O2 -g
override CFLAGS += -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror -I. -Iinclude -I$(BUILD)
LDLIBS   += -lxdp -lbpf -lmnl -ljson-c -lelf -lz -lm -lmicrohttpd
BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror -Iinclude -I$(BUILD)

BPF_SRCS := xdp/pathscope_xdp.bpf.c tc/pathscope_tc.bpf.c probes/pathscope_txlat.bpf.c \
            probes/pathscope_kernel.bpf.c probes/pathscope_sock.bpf.c
BPF_OBJS := $(patsubst %.bpf.c,$(BUILD)/%.bpf.o,$(notdir $(BPF_SRCS)))
SKELS    := $(patsubst %.bpf.o,%.skel.h,$(BPF_OBJS))
ABI_HDRS := $(wildcard include/pathscope/*.h)
# User space, bottom to top: lib <- nic <- loader <- stats <- export <- cli.
USER_DIRS := lib nic loader stats stats/format stats/families export cli
HEADERS  := $(ABI_HDRS) $(foreach d,$(USER_DIRS),$(wildcard $(d)/*.h))

APP_SRCS := $(foreach d,$(USER_DIRS),$(wildcard $(d)/*.c))
APP_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(APP_SRCS))
LIB_OBJS := $(filter-out $(BUILD)/cli/main.o,$(APP_OBJS))

UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/*.c))
BPF_TESTS  := $(patsubst tests/bpf/%.c,$(BUILD)/tests/%,$(wildcard tests/bpf/*.c))
TEST_TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tests/%,$(wildcard tests/tools/*.c))
STANDINS   := $(patsubst tests/standins/%.bpf.c,$(BUILD)/tests/%.bpf.o,$(wildcard tests/standins/*.bpf.c))

.PHONY: all deps demo test test-asan test-valgrind fuzz fuzzers bench format clean help install
.SECONDARY:
all: $(BUILD)/pathscope $(UNIT_TESTS) $(BPF_TESTS) $(TEST_TOOLS) $(STANDINS)

help:
	@echo "make            build pathscope, its BPF objects and the tests"
	@echo "make deps       install build and test dependencies (Debian 12, apt-get, root)"
	@echo "make demo       throwaway two-namespace testbed, 10 s of traffic, per-queue report"
	@echo "make test       all tests (unit, BPF_PROG_TEST_RUN, namespaces); ends 'N passed, N failed'"
	@echo "make test-asan  the whole suite against a clang ASan+UBSan build (build-asan/)"
	@echo "make test-valgrind  the C tests and every pathscope run under valgrind memcheck"
	@echo "make fuzz       libFuzzer on every parser of outside input (FUZZ_SECONDS each, default 60)"
	@echo "make bench      per-packet cost and live overhead beside peers -> bench/results/ (~17 min)"
	@echo "make install    install pathscope, its man pages, completion and units under /usr/local"
	@echo "make deb        pathscope_<version>_<arch>.deb (dpkg-buildpackage), then apt-get install ./pathscope_*.deb"
	@echo "make format     clang-format every C source and header"

deps:
	@bash scripts/deps.sh

$(BUILD)/vmlinux.h:
	@mkdir -p $(BUILD)
	@test -r /sys/kernel/btf/vmlinux || { echo "no /sys/kernel/btf/vmlinux: kernel BTF (CONFIG_DEBUG_INFO_BTF) is required" >&2; exit 1; }
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/%.bpf.o: */%.bpf.c $(BUILD)/vmlinux.h $(ABI_HDRS)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.bpf.o: tests/standins/%.bpf.c $(BUILD)/vmlinux.h $(wildcard tests/standins/*.h)
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(basename $(basename $(notdir $<))) > $@.tmp && mv $@.tmp $@

$(BUILD)/%.o: %.c $(HEADERS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/pathscope: $(APP_OBJS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

TEST_HDRS := $(wildcard tests/unit/*.h tests/lib/*.h)

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS)

$(BUILD)/tests/%: tests/bpf/%.c $(LIB_OBJS) $(SKELS) $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(LIB_OBJS) -o $@ $(LDLIBS)

$(BUILD)/tests/%: tests/tools/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@

# The tests' timing instruments (the delay line, the tap wire) are the same
# program in every build: sanitized, the delay line forwards each frame more
# slowly at real-time priority on CPU 0, and delays whatever else runs there
# (test_tcp_delay's sockperf client read 200 us more in a test-asan run).
$(BUILD)/tests/delayline $(BUILD)/tests/tapwire: override CFLAGS := -O2 -g -std=gnu11 \
	-D_GNU_SOURCE -Wall -Wextra -Werror -I. -Iinclude -I$(BUILD)

demo: deps all
	@bash scripts/demo.sh

test: deps all
	@bash tests/run.sh

# Sanitizers: user space built by clang with AddressSanitizer and
# UndefinedBehaviorSanitizer into build-asan/; a report stops the program
# (halt_on_error, exit 99) and goes to a file of its own in build-asan/logs
# (log_path), and any such file fails the run, also where a test ignored the
# program's status (a leak is reported at exit).
# ASAN_TESTS: space-separated path patterns to run only some tests (CI).
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_TESTS ?=
ASAN_LOGS := $(CURDIR)/build-asan/logs
test-asan: deps
	$(MAKE) BUILD=build-asan CC=clang CFLAGS="$(SAN_FLAGS)" all
	@rm -rf $(ASAN_LOGS) && mkdir -p -m 1777 $(ASAN_LOGS) # also for the unprivileged runs
	@rc=0; PS_BUILD=build-asan ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:exitcode=99:log_path=$(ASAN_LOGS)/asan \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$(ASAN_LOGS)/ubsan \
		bash tests/run.sh "$(ASAN_TESTS)" || rc=$$?; \
	bash tests/sanitizer-logs.sh $(ASAN_LOGS) || rc=1; exit $$rc

# libFuzzer targets (tests/fuzz/), built with ASan + UBSan into build-fuzz/;
# tests/fuzz/run.sh runs each for FUZZ_SECONDS from its seed corpus.
FUZZ_SECONDS ?= 60
fuzz: deps
	$(MAKE) BUILD=build-fuzz CC=clang CFLAGS="$(SAN_FLAGS) -fsanitize=fuzzer-no-link" fuzzers
	@bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

fuzzers: $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(wildcard tests/fuzz/*.c))

$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer $< $(LIB_OBJS) -o $@ $(LDLIBS)

# valgrind memcheck: the C tests run under it, and every pathscope command of
# the integration tests goes through a wrapper that runs it under it.
# Valgrind's own messages go to build-valgrind/valgrind/PID.log, not to the
# programs' stderr (tests compare stderr); an error exits 99 and fails the test,
# and the logs that hold errors are listed at the end. Attach takes ~12 s under
# valgrind (libxdp reads kernel BTF), so the fault test does PS_FAULT_CYCLES
# attach/detach cycles instead of 500.
VALGRIND_TESTS ?=
VALGRIND_LOGS := $(CURDIR)/build-valgrind/valgrind
VALGRIND := valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
	--suppressions=$(CURDIR)/tests/valgrind.supp --log-file=$(VALGRIND_LOGS)/%p.log
test-valgrind: deps
	$(MAKE) BUILD=build-valgrind all
	@rm -rf $(VALGRIND_LOGS) && mkdir -p -m 1777 $(VALGRIND_LOGS) # also for the unprivileged runs
	@printf '#!/bin/sh\nexec %s %s "$$@"\n' "$(VALGRIND)" "$(CURDIR)/build-valgrind/pathscope" \
		> build-valgrind/pathscope-valgrind && chmod +x build-valgrind/pathscope-valgrind
	@rc=0; PS_BUILD=build-valgrind PATHSCOPE=$(CURDIR)/build-valgrind/pathscope-valgrind \
		PS_WRAP="$(VALGRIND)" PS_FAULT_CYCLES=$${PS_FAULT_CYCLES:-20} PS_SLOW=20 bash tests/run.sh "$(VALGRIND_TESTS)" || rc=$$?; \
	bash tests/valgrind-logs.sh $(VALGRIND_LOGS) || rc=1; exit $$rc

# make bench: the micro benchmark (bench/micro.c, BPF_PROG_TEST_RUN beside
# bench/empty.bpf.c) and the live one (namespaces); see bench/README.md.
bench: deps all $(BUILD)/bench/micro $(BUILD)/bench/empty.bpf.o
	@PS_BENCH_BUILD=$(BUILD) bash bench/run.sh

$(BUILD)/bench/empty.bpf.o: bench/empty.bpf.c $(BUILD)/vmlinux.h
	@mkdir -p $(dir $@)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bench/micro: bench/micro.c $(ABI_HDRS) $(SKELS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< -o $@ $(LDLIBS)

# make install: the binary, the man pages, the bash completion, the systemd units
# (their ExecStart paths set to these directories), the units' helper and the
# examples (Prometheus scrape configuration, Grafana dashboard, an instance's
# settings). debian/rules runs it with prefix=/usr unitdir=/lib/systemd/system.
prefix      ?= /usr/local
sbindir     ?= $(prefix)/sbin
libexecdir  ?= $(prefix)/libexec
datadir     ?= $(prefix)/share
mandir      ?= $(datadir)/man
unitdir     ?= $(prefix)/lib/systemd/system
bashcompdir ?= $(datadir)/bash-completion/completions
install: $(BUILD)/pathscope
	install -D -m 0755 $(BUILD)/pathscope $(DESTDIR)$(sbindir)/pathscope
	install -D -m 0755 packaging/check-listen $(DESTDIR)$(libexecdir)/pathscope/check-listen
	install -d $(DESTDIR)$(mandir)/man8 $(DESTDIR)$(unitdir) $(DESTDIR)$(datadir)/pathscope/grafana
	install -m 0644 man/*.8 $(DESTDIR)$(mandir)/man8/
	install -D -m 0644 packaging/bash-completion/pathscope $(DESTDIR)$(bashcompdir)/pathscope
	for u in pathscope.service pathscope@.service; do \
		sed -e 's|/usr/local/sbin/|$(sbindir)/|' -e 's|/usr/local/libexec/|$(libexecdir)/|' \
			packaging/$$u > $(DESTDIR)$(unitdir)/$$u && chmod 0644 $(DESTDIR)$(unitdir)/$$u || exit 1; \
	done
	install -m 0644 packaging/prometheus.yml packaging/instance.conf $(DESTDIR)$(datadir)/pathscope/
	install -m 0644 packaging/grafana/pathscope.json $(DESTDIR)$(datadir)/pathscope/grafana/

# make deb: pathscope_<version>_<arch>.deb in the repository root, built by
# dpkg-buildpackage from a copy of the tree with debian/changelog written from
# lib/version.h (scripts/deb.sh).
.PHONY: deb
deb: deps
	@bash scripts/deb.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) build-asan build-valgrind build-fuzz
