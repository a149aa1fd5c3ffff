# MercurialText: build, test and install the `mercurial` command.
#
#   make                    the release binary (Swift standard library linked in
#                           statically), its completions and man page, staged in
#                           .build/install-stage
#   make test               swift test
#   make install            copies the stage to $(DESTDIR)$(PREFIX): bin/mercurial,
#                           bin/mercurial-edit-server, bin/mercurial-serve-server,
#                           share/mercurial/ (fonts, materials), completions for bash,
#                           zsh and fish, share/man/man1/mercurial.1
#   make uninstall          removes exactly what install wrote (it keeps a list)
#   make deb                the stage as a Debian package, $(DEB_PACKAGE)_VERSION_ARCH.deb
#                           (apt install ./that.deb; it needs no Swift toolchain), Depends
#                           from dpkg-shlibdeps (dpkg-dev); scripts/deb-test.sh tests it
#   make clean              removes .build
#
#   make install PREFIX=/usr DESTDIR=/tmp/pkg   (PREFIX defaults to /usr/local)
#   make install BIN=path/to/mercurial          installs a binary built elsewhere
#                                               (the install test uses the debug one)
#
# `make && sudo make install`: when `make` has staged everything, install needs no
# swift (sudo usually has none on its PATH) and writes nothing into .build but the stage.

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
# release, or debug (the install test, to reuse the test build's ArgumentParser).
# Package.swift links the Swift runtime and Foundation into release programs (the C
# libraries stay dynamic), so `make` and the quick start's `swift build -c release`
# share one build; a debug build needs the toolchain's libraries.
CONFIGURATION ?= release
# More flags for swift build, e.g. --scratch-path .build-other
SWIFT_BUILD_FLAGS ?=
# A binary to install instead of building one (its mercurial-edit-server and
# mercurial-serve-server beside it).
BIN ?=
STAGE ?= .build/install-stage
# The Debian package's name: not `mercurial`, which is the Mercurial VCS's in Debian
# (a newer version of it would replace this one on upgrade).
DEB_PACKAGE ?= mercurial-text
DEB_MAINTAINER ?= $(or $(shell git log -1 --format='%an <%ae>' 2>/dev/null),MercurialText maintainers <root@localhost>)

SHELL := /bin/bash
BUILD = $(SWIFT) build -c $(CONFIGURATION) $(SWIFT_BUILD_FLAGS)
VERSION := $(shell bash scripts/install.sh version)
# What the stage is made of: when nothing here is newer than the stage and the
# settings are the same, install builds nothing.
STAGE_INPUTS := Package.swift Makefile $(BIN) $(STAGE)/settings \
    $(shell find Sources fonts materials scripts/install.sh scripts/manual-help-ascii.sh \
        -type f -not -path 'materials/previews/*' 2>/dev/null | sed 's/ /\\ /g')
STAGE_SETTINGS := $(BIN) $(CONFIGURATION) $(SWIFT_BUILD_FLAGS)

.PHONY: all build test install uninstall deb clean version FORCE
all: build

# Always asks swift (a no-op when nothing changed), then stages again.
build: $(STAGE)/settings
	$(STAGE_COMMANDS)

$(STAGE)/staged: $(STAGE_INPUTS)
	$(STAGE_COMMANDS)

# Rewritten only when the settings change, which then makes the stage stale.
$(STAGE)/settings: FORCE
	@mkdir -p '$(STAGE)'
	@echo '$(STAGE_SETTINGS)' | cmp -s - '$@' || echo '$(STAGE_SETTINGS)' >'$@'

define STAGE_COMMANDS
@command -v '$(SWIFT)' >/dev/null || { echo "error: '$(SWIFT)' is not on PATH (sudo's PATH often lacks it); run 'make' as yourself first, then 'sudo make install'" >&2; exit 1; }
$(if $(BIN),,$(BUILD) --product mercurial)
$(if $(BIN),,$(BUILD) --product mercurial-edit-server)
$(if $(BIN),,$(BUILD) --product mercurial-serve-server)
$(BUILD) --product generate-manual
bin_dir="$$($(BUILD) --show-bin-path)" && bash scripts/install.sh stage "$(or $(BIN),$$bin_dir/mercurial)" "$$bin_dir/generate-manual" '$(STAGE)/tree'
@touch '$(STAGE)/staged'
endef

install: $(STAGE)/staged
	bash scripts/install.sh install '$(STAGE)/tree' '$(DESTDIR)' '$(PREFIX)'

# In the source folder, named as Debian names it: PACKAGE_VERSION_ARCH.deb.
deb: $(STAGE)/staged
	bash scripts/install.sh deb '$(STAGE)/tree' '$(DEB_PACKAGE)' '$(DEB_MAINTAINER)' \
	    "$(DEB_PACKAGE)_$(VERSION)_$$(dpkg --print-architecture).deb"

uninstall:
	bash scripts/install.sh uninstall '$(DESTDIR)' '$(PREFIX)'

test:
	$(SWIFT) test

clean:
	rm -rf .build

version:
	@echo $(VERSION)
