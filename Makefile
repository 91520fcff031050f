# hreaderd: build, test, install.
#   make                 release build, and the default library pack (.build/library/default)
#   make test            the Swift tests only (swift build --build-tests, swift test)
#   make check           every test: the Swift tests, then fuzzing, the reliability runs and the browser
#                        tests (scripts/test.sh, the same as .ci/run and the README's test command)
#   make bench           the benchmarks, with their figures
#   make validate-exports  the IPS and the CCD of the shared samples, the demo family and 20 vendor-corpus
#                        people through both offline validators, and read back (long: minutes a CCD)
#   make install         install the binary, the web app, the default library pack and the systemd units
#                        (PREFIX=/usr/local, DESTDIR= for staging, UNITDIR=$(PREFIX)/lib/systemd/system)
# Missing Debian packages (scripts/install-deps.sh): as root they are installed with apt-get; as another
# user make prints the `sudo apt-get install …` command to run and stops. It never runs sudo itself.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/hreaderd
DOCDIR ?= $(PREFIX)/share/doc/hreaderd
UNITDIR ?= $(PREFIX)/lib/systemd/system
SWIFT ?= swift

.PHONY: all build test check bench install uninstall validate-exports

all: build

build:
	scripts/install-deps.sh
	scripts/build-release.sh hreaderd hreaderd-library-pack
	scripts/build-library-pack.sh

test:
	scripts/install-deps.sh
	scripts/install-validators.sh >/dev/null
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel

check:
	scripts/test.sh

bench:
	scripts/bench.sh

validate-exports:
	scripts/install-deps.sh
	$(SWIFT) build --product hreaderd
	$(SWIFT) build --product generate-records
	/usr/bin/python3 scripts/validate-exports.py --long

install: build
	install -d -m 0755 $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/timeline $(DESTDIR)$(UNITDIR) $(DESTDIR)$(DOCDIR)
	install -m 0755 .build/release/dist/hreaderd $(DESTDIR)$(BINDIR)/hreaderd
	cp -R Public/timeline/. $(DESTDIR)$(DATADIR)/timeline/
	find $(DESTDIR)$(DATADIR)/timeline -type d -exec chmod 0755 {} + -o -type f -exec chmod 0644 {} +
	@# The default library pack (scripts/build-library-pack.sh): the daemon installs it into STATE_DIR/library at
	@# start, trusted by its recorded manifest hash. Its three files and that hash; never the build's key.
	install -d -m 0755 $(DESTDIR)$(DATADIR)/library/default
	install -m 0644 .build/library/default/manifest.json .build/library/default/manifest.json.sig \
		.build/library/default/manifest.json.sha256 .build/library/default/*.sqlite.gz $(DESTDIR)$(DATADIR)/library/default/
	sed 's|/usr/local/bin/hreaderd|$(BINDIR)/hreaderd|; s|/usr/local/share/doc/hreaderd|$(DOCDIR)|' systemd/hreaderd.service \
		> $(DESTDIR)$(UNITDIR)/hreaderd.service
	install -m 0644 systemd/hreaderd.socket $(DESTDIR)$(UNITDIR)/hreaderd.socket
	chmod 0644 $(DESTDIR)$(UNITDIR)/hreaderd.service
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	@# The service's own user; only on a real install, not into a staging DESTDIR.
	@if [ -z "$(DESTDIR)" ] && ! getent passwd hreaderd >/dev/null; then \
		useradd --system --home-dir /var/lib/hreaderd --no-create-home --shell /usr/sbin/nologin hreaderd; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hreaderd $(DESTDIR)$(UNITDIR)/hreaderd.service $(DESTDIR)$(UNITDIR)/hreaderd.socket
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)
