# Included by crates/aesx-capi/Makefile and examples/c/Makefile (after they
# set ROOT, the repository root): TARGET_DIR, cargo's target directory as an
# absolute path. CARGO_TARGET_DIR wins if set (a relative one is taken from
# ROOT); unset, cargo is asked, so that a target-dir from a cargo config
# file counts too.
CARGO ?= cargo
ifeq ($(origin CARGO_TARGET_DIR),undefined)
CARGO_TARGET_DIR := $(shell cd $(ROOT) && $(CARGO) metadata --format-version 1 --no-deps 2>/dev/null \
	| sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
endif
ifeq ($(CARGO_TARGET_DIR),)
CARGO_TARGET_DIR := $(ROOT)/target
endif
TARGET_DIR := $(if $(filter /%,$(CARGO_TARGET_DIR)),$(CARGO_TARGET_DIR),$(ROOT)/$(CARGO_TARGET_DIR))
