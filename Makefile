# SPDX-License-Identifier: GPL-2.0
#
# retire: the kernel module, its library, CLI and tests.
#
#   make            build retire.ko against KDIR, libretire, retirectl and
#                   the kselftests
#   make check      install what is missing, then build and test on the
#                   debug 6.12, stock 6.1 and stock 6.12 kernels in QEMU
#   make run        install what is missing, build, and run the main job
#                   in a VM
#   make lint       checkpatch --strict, sparse (C=2) against stock 6.1,
#                   6.12 and the debug kernel, kernel-doc -Wall, and
#                   shellcheck; fails on any finding (make check runs it)
#   make install    install libretire, retirectl and the headers
#                   (PREFIX, DESTDIR as usual)
#   make fuzz       the fuzzer's long form on the debug kernel, as root with
#                   engine knobs, resets and limits changes
#                   (FUZZ_SECONDS=600, FUZZ_SEED=the time)
#   make stress     10 minutes of the stress mix on the debug kernel, then
#                   a 1,000-kill storm (STRESS_SEED=the time)
#   make bench      the benchmark against io_uring on stock 6.1 and 6.12,
#                   one guest boot each, in wall time; then on 6.12 in
#                   guest instructions (Documentation/performance.rst)
#
# KDIR defaults to the running kernel's build tree if there is one, else
# the newest installed Debian 6.12 headers.

KERNELRELEASE_RUNNING := $(shell uname -r)
KDIR ?= $(or $(wildcard /lib/modules/$(KERNELRELEASE_RUNNING)/build), \
	     $(lastword $(sort $(wildcard /usr/src/linux-headers-6.12.*-amd64))))

all: module userspace selftests

module:
	@test -n "$(KDIR)" || { echo "no kernel build tree: set KDIR or run scripts/deps.sh"; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

userspace:
	$(MAKE) -C userspace

selftests: userspace
	$(MAKE) -C selftests

check:
	scripts/check.sh

lint:
	scripts/deps.sh
	scripts/lint.sh

FUZZ_SECONDS ?= 600
FUZZ_SEED ?= $(shell date +%s)
STRESS_SEED ?= $(shell date +%s)

fuzz:
	scripts/deps.sh
	scripts/campaign.sh -k debug fuzz -s $(FUZZ_SEED) -t $(FUZZ_SECONDS) \
		-n 4 --root-knobs --inject

stress:
	scripts/deps.sh
	scripts/campaign.sh -k debug stress -s $(STRESS_SEED) -t 600
	scripts/campaign.sh -k debug killstorm -s $(STRESS_SEED) -k 1000

bench:
	scripts/deps.sh
	scripts/bench.sh
	scripts/bench.sh -i -k 6.12

run:
	scripts/run.sh

install:
	$(MAKE) -C userspace install

clean:
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests clean KSFT_DIR=/nonexistent
	rm -rf build

.PHONY: all module userspace selftests check lint run install clean fuzz stress bench
