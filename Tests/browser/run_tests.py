#!/usr/bin/python3
"""Browser tests of the timeline web app: the real hreaderd daemon with Henry Smith's sample record
imported, driven in real headless Chromium over WebDriver (Debian's chromium, chromium-driver and
python3-selenium).

    /usr/bin/python3 Tests/browser/run_tests.py [--bin DIR] [--only NAME…] [--keep]

--bin DIR: the folder of hreaderd and the tools built beside it (generate-records, rhex-sandbox, fhir-sandbox,
hreaderd-library-pack);
default $HREADERD_BIN_DIR, else the folder of $HREADERD_BIN (a path to hreaderd), else .build/debug.
Environment: HREADERD_SAMPLES (default ../shared/rhex-samples), HREADERD_SCREENSHOTS (default
.build/browser-screenshots). The daemon is started by Tools/harness/hreaderd_harness.py.
Prints one line per test and, last, "N passed, M failed"; exits non-zero when a test failed.
"""

import argparse
import os
import shutil
import sys
import time
import traceback
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import ROOT, AttackerSite, Browser, Daemon, Skip, make_workdir  # noqa: E402
import app_tests  # noqa: E402
import attack_tests  # noqa: E402
import library_tests  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", help="run only the tests whose names contain one of these words")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (daemon log, store)")
    parser.add_argument("--bin", metavar="DIR", help="folder of hreaderd, generate-records and rhex-sandbox (default .build/debug)")
    args = parser.parse_args()

    if args.bin:
        bin_dir = Path(args.bin)
    elif os.environ.get("HREADERD_BIN_DIR"):
        bin_dir = Path(os.environ["HREADERD_BIN_DIR"])
    elif os.environ.get("HREADERD_BIN"):
        bin_dir = Path(os.environ["HREADERD_BIN"]).parent
    else:
        bin_dir = ROOT / ".build" / "debug"
    bin_dir = bin_dir.resolve()
    samples = Path(os.environ.get("HREADERD_SAMPLES", ROOT.parent / "shared" / "rhex-samples"))
    shots = Path(os.environ.get("HREADERD_SCREENSHOTS", ROOT / ".build" / "browser-screenshots"))

    if not (samples / "hreader_hs_henry_smith.json").exists():
        print(f"browser tests skipped: the sample records are not in {samples} (they live in shared/rhex-samples beside the repository)")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    missing = [name for name in ("hreaderd", "generate-records", "hreaderd-library-pack") if not (bin_dir / name).exists()]
    if missing:
        print(f"browser tests: {' and '.join(missing)} missing in {bin_dir}; build first (swift build"
              + "".join(f" --product {name}" for name in missing) + ")")
        print("0 passed, 1 failed")
        return 1
    try:
        import selenium  # noqa: F401
    except ImportError:
        print("browser tests: python3-selenium is missing (scripts/install-browser-deps.sh installs it)")
        print("0 passed, 1 failed")
        return 1

    tests = app_tests.TESTS + library_tests.TESTS + attack_tests.TESTS
    if args.only:
        # The daemon starts locked, and every other test assumes the session the sign-in test makes: it runs
        # first whatever was chosen.
        first = [app_tests.test_sign_in_unlocks_the_store]
        tests = first + [t for t in tests if t not in first and any(word in t.__name__ for word in args.only)]

    work = make_workdir()
    shutil.rmtree(shots, ignore_errors=True)
    shots.mkdir(parents=True, exist_ok=True)
    daemon = browser = attacker = None
    passed, failed, skipped = 0, 0, 0
    started = time.time()
    try:
        daemon = Daemon(bin_dir, samples, work)
        daemon.prepare()
        daemon.start()
        attacker = AttackerSite(work, daemon.origin)
        browser = Browser(work)
        context = app_tests.Context(daemon, browser, attacker, shots)
        print(f"browser tests: daemon on {daemon.origin}, attacker on port {attacker.port}, screenshots in {shots}")
        for test in tests:
            name = test.__name__
            t0 = time.time()
            try:
                test(context)
                context.check_console(name)
                passed += 1
                print(f"PASS {name} ({time.time() - t0:.1f} s)", flush=True)
            except Skip as reason:
                skipped += 1
                print(f"SKIP {name}: {reason}", flush=True)
                context.recover()
            except Exception as error:  # noqa: BLE001 - one failing test must not stop the others
                failed += 1
                print(f"FAIL {name} ({time.time() - t0:.1f} s): {error}", flush=True)
                if not isinstance(error, AssertionError):
                    traceback.print_exc()
                try:
                    browser.driver.save_screenshot(str(shots / f"FAILED-{name}.png"))
                except Exception:  # noqa: BLE001
                    pass
                context.recover()
    except Exception as error:  # noqa: BLE001 - the harness itself failed
        failed += 1
        print(f"FAIL harness: {error}")
        traceback.print_exc()
    finally:
        if browser:
            try:
                browser.quit()
            except Exception:  # noqa: BLE001
                pass
        if attacker:
            attacker.stop()
        if daemon:
            daemon.stop()
            if daemon.publisher:
                daemon.publisher.stop()
            if failed and daemon.log_path:
                print("--- daemon log (last lines) ---")
                print(daemon.log_tail(30))
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"browser tests took {time.time() - started:.0f} s")
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
