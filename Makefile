# SPDX-License-Identifier: GPL-2.0
#
# retire: the kernel module, its library, CLI and tests.
#
#   make            build retire.ko (the core) and its engine modules
#                   against KDIR, libretire, retirectl and the kselftests
#   make check      install what is missing, then build and test on the
#                   debug 6.12, stock 6.1 and stock 6.12 kernels in QEMU;
#                   parts of it (Documentation/testing.rst):
#                   KERNELS="6.12"           those kernels only
#                   SUITE=ring_test,kunit    those suites only
#                   PLANT=ring-trusts-the-tail   that planted fault only
#                   ONLY=host,kernels,bench,plants   those groups only
#   make run        install what is missing, build, and run the main job
#                   in a VM
#   make lint       checkpatch --strict, sparse (C=2) against stock 6.1,
#                   6.12 and the debug kernel, kernel-doc -Wall, and
#                   shellcheck; fails on any finding (make check runs it)
#   make model      spin exhausts the protocol model (make check runs it);
#                   make model-mutations shows each of its claims bite
#   make install    (as root, after make) install-module, then
#                   install-userspace:
#     install-module     retire.ko and the engines retire_null.ko,
#                        retire_sim.ko, retire_edu.ko into
#                        /lib/modules/<KDIR's release>/updates/kmod/
#                        (kbuild's modules_install), then depmod
#     install-userspace  libretire (LIBDIR: PREFIX/lib/<multiarch>),
#                        its headers, libretire.pc, retirectl, the man
#                        pages, the udev rule giving /dev/retire to the
#                        group "retire" (UDEVRULESDIR), and that group when
#                        it is missing
#                   PREFIX (/usr/local), DESTDIR (a staging root: depmod -b
#                   there, no group, no ldconfig), LIBDIR, UDEVRULESDIR
#   make uninstall  remove exactly what install made, as noted in
#                   PREFIX/share/retire/manifest, then depmod and ldconfig
#                   again; the group stays (groupdel retire removes it)
#   make dkms       (as root) copy the module's sources to
#                   /usr/src/retire-VERSION, dkms add, and dkms install
#                   for every kernel with headers; DKMS rebuilds it for
#                   each kernel installed later. make dkms-remove undoes
#                   it. With DKMS, make install-userspace for the rest.
#   make fuzz       the fuzzer's long form on the debug kernel, as root with
#                   engine knobs, resets and limits changes
#                   (FUZZ_SECONDS=600, FUZZ_SEED=the time)
#   make stress     10 minutes of the stress mix on the debug kernel, then
#                   a 1,000-kill storm and 200 rounds of the edu device
#                   removed under cancels (STRESS_SEED=the time)
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

# KERNELS, SUITE, PLANT and ONLY pick a part of the run (scripts/check.sh)
check:
	KERNELS='$(KERNELS)' SUITE='$(SUITE)' PLANT='$(PLANT)' ONLY='$(ONLY)' \
		scripts/check.sh

lint:
	scripts/deps.sh
	scripts/lint.sh

# the protocol model (Documentation/model/retire.pml), checked by spin;
# model-mutations shows each of its claims catch the bug it exists for
model:
	scripts/deps.sh
	scripts/model-check.sh

model-mutations:
	scripts/deps.sh
	scripts/model-mutations.sh

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
	scripts/campaign.sh -k debug removal -s $(STRESS_SEED) -r 200

bench:
	scripts/deps.sh
	scripts/bench.sh
	scripts/bench.sh -i -k 6.12

run:
	scripts/run.sh

# --- install, uninstall, dkms ---------------------------------------------
PREFIX		?= /usr/local
UDEVRULESDIR	?= $(PREFIX)/lib/udev/rules.d
INSTALL_MOD_DIR	?= updates
MANIFEST	:= $(PREFIX)/share/retire/manifest
INST		= MANIFEST='$(MANIFEST)' DESTDIR='$(DESTDIR)' scripts/manifest.sh
# the release modules are built for (their vermagic): Debian's 6.1 headers
# say 6.1.<n> in include/config/kernel.release, 6.1.0-<abi>-amd64 here,
# so modules_install is told it, as dkms does
KVER		= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
			$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
MODDIR		= /lib/modules/$(KVER)
DEPMOD_B	= $(if $(DESTDIR),-b $(DESTDIR))
# Debian's headers name a signing key they do not ship: kbuild would try
# it, fail and say so (an external module is then installed unsigned)
SIG_KEY		= $(shell sed -n 's/^CONFIG_MODULE_SIG_KEY="\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' \
			$(KDIR)/include/config/auto.conf 2>/dev/null)
NO_SIGN		= $(if $(SIG_KEY),$(if $(filter pkcs11:%,$(SIG_KEY))$(wildcard \
			$(SIG_KEY) $(KDIR)/$(SIG_KEY)),,CONFIG_MODULE_SIG_ALL=))
VERSION		:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
DKMS_SRC	?= /usr/src/retire-$(VERSION)
# the dkms command, options and all (--dkmstree, --sourcetree,
# --installtree, --no-depmod point it at scratch trees)
DKMS		?= dkms

# one after the other: both note what they make in one manifest
install:
	$(MAKE) install-module
	$(MAKE) install-userspace

# what make built, for KDIR's kernel: modules_install does not build.
# Debian's headers have no System.map, so kbuild skips depmod (and says
# so): it runs here. "make", not $(MAKE): make -n would run a line that
# names $(MAKE), manifest.sh and all.
install-module:
	@test -n "$(KVER)" || { echo "install: no kernel release in KDIR=$(KDIR)"; exit 1; }
	@test -e kmod/retire.ko || { echo "install: no kmod/retire.ko: run make first"; exit 1; }
	@v=$$(modinfo -F vermagic kmod/retire.ko | cut -d' ' -f1); \
	test "$$v" = "$(KVER)" || { \
		echo "install: kmod/retire.ko is built for $$v, KDIR for $(KVER): make KDIR=... first"; \
		exit 1; }
	$(if $(NO_SIGN),@echo "install: KDIR has no signing key $(SIG_KEY): retire.ko goes unsigned")
	$(INST) new $(MODDIR)/$(INSTALL_MOD_DIR) -- make -C $(KDIR) M=$(CURDIR) \
		KERNELRELEASE=$(KVER) INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) $(NO_SIGN) modules_install
	$(INST) new $(MODDIR) -- depmod $(DEPMOD_B) $(KVER)
	@if [ -z "$(DESTDIR)" ]; then \
		echo "install: from the next boot on, kmod static-nodes makes /dev/retire and its first open loads retire.ko; until then: modprobe retire"; \
	fi

# the group, and telling a running udevd, only on this machine
install-userspace:
	$(MAKE) -C userspace install PREFIX=$(PREFIX) MANIFEST=$(MANIFEST)
	$(INST) file 0644 udev/60-retire.rules $(UDEVRULESDIR)
	@if [ -n "$(DESTDIR)" ]; then \
		echo "install: DESTDIR install: no group made here; on the target: groupadd --system retire"; \
	elif getent group retire >/dev/null; then \
		echo "install: the group retire is there already"; \
	else \
		groupadd --system retire && \
		echo "install: made the system group retire: usermod -aG retire USER gives USER /dev/retire"; \
	fi
	@if [ -z "$(DESTDIR)" ] && udevadm control --reload 2>/dev/null && \
	    [ -e /sys/class/misc/retire ]; then \
		udevadm trigger --settle /sys/class/misc/retire; \
	fi

# the kernels noted come from the manifest, read before it goes: depmod
# refreshes each index install changed and did not make (a DESTDIR's
# index was made by install: it went with the rest)
uninstall:
	@kvers=$$(sed -n 's|^/lib/modules/\([^/]*\)/.*|\1|p' $(DESTDIR)$(MANIFEST) 2>/dev/null | sort -u); \
	$(INST) remove && \
	for k in $$kvers; do \
		if [ -e "$(DESTDIR)/lib/modules/$$k/modules.dep" ]; then \
			echo "depmod $(DEPMOD_B) $$k"; depmod $(DEPMOD_B) $$k || exit 1; \
		fi; \
	done
	$(if $(DESTDIR),,ldconfig)
	@if [ -z "$(DESTDIR)" ]; then udevadm control --reload 2>/dev/null || true; fi
	@if [ -z "$(DESTDIR)" ] && getent group retire >/dev/null; then \
		echo "uninstall: the group retire stays (groupdel retire removes it)"; \
	fi

# the module's sources only, as DKMS builds them: no tests, no userspace
dkms-src:
	@test -n "$(VERSION)" || { echo "dkms: no PACKAGE_VERSION in dkms.conf"; exit 1; }
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)/kmod $(DKMS_SRC)/uapi/linux $(DKMS_SRC)/include/linux
	install -m 0644 dkms.conf Kbuild $(DKMS_SRC)/
	install -m 0644 kmod/Kbuild kmod/*.[ch] $(DKMS_SRC)/kmod/
	install -m 0644 uapi/linux/*.h $(DKMS_SRC)/uapi/linux/
	install -m 0644 include/linux/*.h $(DKMS_SRC)/include/linux/

# every kernel with headers (a build link in /lib/modules); a version
# added before is removed first, so that these sources are the ones built
dkms:
	@if [ -n "$$($(DKMS) status retire/$(VERSION))" ]; then \
		echo "dkms remove retire/$(VERSION) --all"; \
		$(DKMS) remove retire/$(VERSION) --all; \
	fi
	$(MAKE) dkms-src
	$(DKMS) add retire/$(VERSION)
	@for b in /lib/modules/*/build; do \
		k=$$(basename $$(dirname $$b)); \
		[ -e "$$b/Makefile" ] || continue; \
		echo "dkms install retire/$(VERSION) -k $$k"; \
		$(DKMS) install retire/$(VERSION) -k $$k || exit 1; \
	done

dkms-remove:
	$(DKMS) remove retire/$(VERSION) --all
	rm -rf $(DKMS_SRC)

clean:
	-$(if $(KDIR),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests clean KSFT_DIR=/nonexistent
	rm -rf build

.PHONY: all module userspace selftests check lint model model-mutations run install install-module \
	install-userspace uninstall dkms-src dkms dkms-remove clean fuzz stress bench
