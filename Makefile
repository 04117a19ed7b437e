# The lean `aesx` command with its man pages and shell completions,
# libaesx with its header, pkg-config and CMake files (through
# crates/aesx-capi/Makefile), and the OpenSSL 3 provider module aesx.so
# (crates/aesx-provider) in LIBDIR/ossl-modules, which is OpenSSL's own
# modules directory when LIBDIR is the system's (see `openssl version -m`):
#
#   make install PREFIX=$HOME/.local          # or sudo make install
#   make install STATIC=1                     # the static (musl) command
#   make uninstall PREFIX=$HOME/.local
#
# PREFIX (default /usr/local), DESTDIR (a staging root, for packagers:
# tools/package/deb.sh), BINDIR, MANDIR, DATADIR and the library's LIBDIR,
# INCLUDEDIR, PKGCONFIGDIR and CMAKEDIR, and OSSL_MODULESDIR, as usual. The man pages and
# completions are made by the built binary itself (`aesx generate`), so
# they always match its options.

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
include $(ROOT)/crates/aesx-capi/target-dir.mk
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
LIBDIR ?= $(PREFIX)/lib
OSSL_MODULESDIR ?= $(LIBDIR)/ossl-modules
DESTDIR ?=
ifeq ($(STATIC),1)
MUSL := $(shell uname -m)-unknown-linux-musl
CLI := $(TARGET_DIR)/$(MUSL)/release/aesx
TARGET_FLAG := --target $(MUSL)
else
CLI := $(TARGET_DIR)/release/aesx
TARGET_FLAG :=
endif
GEN := $(TARGET_DIR)/generated
# What a shell looks in for completions, under DATADIR.
BASH_DIR := bash-completion/completions
ZSH_DIR := zsh/site-functions
FISH_DIR := fish/vendor_completions.d

.PHONY: all cli provider generated install uninstall

all: cli provider generated

cli:
ifeq ($(STATIC),1)
	@# The musl standard library is a rustup component a fresh toolchain lacks.
	rustup target list --installed 2>/dev/null | grep -qx $(MUSL) || rustup target add $(MUSL)
endif
	cd $(ROOT) && CARGO_TARGET_DIR=$(TARGET_DIR) $(CARGO) build --release -p aesx-cli --no-default-features $(TARGET_FLAG)

provider:
	cd $(ROOT) && CARGO_TARGET_DIR=$(TARGET_DIR) $(CARGO) build --release -p aesx-provider

generated: cli
	rm -rf $(GEN) && mkdir -p $(GEN)/man
	$(CLI) generate man -o $(GEN)/man
	$(CLI) generate completions bash > $(GEN)/aesx.bash
	$(CLI) generate completions zsh > $(GEN)/_aesx
	$(CLI) generate completions fish > $(GEN)/aesx.fish

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DATADIR)/$(BASH_DIR) \
	    $(DESTDIR)$(DATADIR)/$(ZSH_DIR) $(DESTDIR)$(DATADIR)/$(FISH_DIR)
	install -m 755 -s $(CLI) $(DESTDIR)$(BINDIR)/aesx
	install -m 644 $(GEN)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(GEN)/aesx.bash $(DESTDIR)$(DATADIR)/$(BASH_DIR)/aesx
	install -m 644 $(GEN)/_aesx $(DESTDIR)$(DATADIR)/$(ZSH_DIR)/_aesx
	install -m 644 $(GEN)/aesx.fish $(DESTDIR)$(DATADIR)/$(FISH_DIR)/aesx.fish
	install -d $(DESTDIR)$(OSSL_MODULESDIR)
	install -m 755 -s $(TARGET_DIR)/release/libaesx_provider.so $(DESTDIR)$(OSSL_MODULESDIR)/aesx.so
	$(MAKE) -C $(ROOT)/crates/aesx-capi install PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) DESTDIR=$(DESTDIR)

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/aesx $(DESTDIR)$(MANDIR)/man1/aesx.1 $(DESTDIR)$(MANDIR)/man1/aesx-*.1 \
	    $(DESTDIR)$(DATADIR)/$(BASH_DIR)/aesx $(DESTDIR)$(DATADIR)/$(ZSH_DIR)/_aesx \
	    $(DESTDIR)$(DATADIR)/$(FISH_DIR)/aesx.fish $(DESTDIR)$(OSSL_MODULESDIR)/aesx.so
	$(MAKE) -C $(ROOT)/crates/aesx-capi uninstall PREFIX=$(PREFIX) LIBDIR=$(LIBDIR) DESTDIR=$(DESTDIR)
