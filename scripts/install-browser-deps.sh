#!/usr/bin/env bash
# Installs what the browser tests (Tests/browser) need, when it is missing: Debian's headless-capable
# Chromium, its WebDriver (chromedriver) and the Selenium client for the system python3. As root with
# apt-get; as another user it prints the `sudo apt-get install …` command to run and exits 1
# (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
exec scripts/install-deps.sh chromium chromium-driver python3-selenium fonts-dejavu-core
