"""The Train widget on the training page, in a real browser, on one load of the page: it is built
only near sight, and Python is fetched only on Start; bad settings are refused next to their field;
a runtime that cannot start says so and offers the command line; the run shows the command line's
losses (the CLI runs in the test); Pause holds; the downloaded checkpoint is one `python -m microgpt
sample` reads, with the command line's weights; leaving the page ends the worker; axe finds nothing
idle, running, paused or failed in light, and idle, paused or failed in dark (by the rules that depend
on colour); every control is reached by the keyboard.

Needs Chromium, playwright and the built site (as tests/browser/test_browser.py); without them it skips,
except with CI=true, where it fails.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from browsing import COLOUR_RULES, Watched, axe_violations, open_page
from mgsite.vendor import SCRIPTS  # where the build writes the site's scripts (widget-*.js: train/widget.js)

import microgpt.course.live as live

pytestmark = pytest.mark.browser

STEPS, SEED = 5, 42  # a short run; the page's other defaults (its model, its learning rate) stay
WIDGET = ".mg-train"
STATE = WIDGET + "[data-state={}]"
CLI = [sys.executable, "-m", "microgpt"]


def python_workers(page) -> list:
    """The page's workers that run Python (run/worker.js, bundled into SCRIPTS), not Material's search worker."""
    return [w for w in page.workers if f"/{SCRIPTS}/worker.js" in w.url]


def command() -> str:
    """The command line that runs what the widget runs: its default settings with STEPS steps and SEED."""
    values = {name: s.default for name, s in live.SETTINGS.items()} | {"steps": STEPS, "seed": SEED}
    return live.command_line(values)


def cli_train(out: Path) -> subprocess.Popen:
    """`python -m microgpt train` as the widget runs it, started now."""
    args = command().split()[3:]  # after `python -m microgpt`
    return subprocess.Popen([*CLI, *args, "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def axe(page, only: list[str] | None = None) -> list[str]:
    """axe-core's violations in the widget now (with `only`, of those rules)."""
    return axe_violations(page, WIDGET, only)


def axe_in_both_schemes(page, state: str) -> list[str]:
    """axe's default rules and target-size in light; in dark, the rules that depend on colour (the same
    elements in other colours)."""
    found = [f"{state}, light: {v}" for v in axe(page)]
    page.get_by_title("Switch to dark mode").first.click()
    page.wait_for_selector("body[data-md-color-scheme=slate]")
    found += [f"{state}, dark: {v}" for v in axe(page, COLOUR_RULES)]
    page.get_by_title("Switch to light mode").first.click()
    page.wait_for_selector("body[data-md-color-scheme=default]")
    return found


def test_train_widget_runs_the_command_lines_training(browser, base_url, tmp_path):  # noqa: C901
    t0 = time.perf_counter()
    lap = lambda what: print(f"{time.perf_counter() - t0:5.1f} s  {what}")  # noqa: E731
    cli = cli_train(tmp_path / "cli.ckpt.json")
    w = Watched(browser, base_url)
    page = w.page
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    found: list[str] = []
    try:
        open_page(page, f"{base_url}/training/")
        assert not [u for u in requested if f"/{SCRIPTS}/widget-" in u], "the widget was built far from sight"
        page.locator(WIDGET).scroll_into_view_if_needed()
        page.wait_for_selector(STATE.format("idle"))
        assert not [u for u in requested if re.search(r"/(vendor/(pyodide|uplot)|dist)/", u)], "fetched before Start"
        assert python_workers(page) == []
        found += axe_in_both_schemes(page, "idle")
        lap("idle + axe")

        # the keyboard reaches every field and the Start button, in order, and focus is visible
        page.locator(f"{WIDGET} input").first.focus()
        reached = []
        for _ in range(6):
            reached.append(page.evaluate("document.activeElement.name || document.activeElement.textContent"))
            assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") != "none"
            page.keyboard.press("Tab")
        assert reached == ["lr", "steps", "n_embd", "n_layer", "seed", "Start"]

        # a bad setting is refused next to its field, and nothing starts
        steps = page.locator(f"{WIDGET} input[name=steps]")
        steps.fill("0")
        steps.press("Enter")
        assert steps.get_attribute("aria-invalid") == "true"
        error = page.locator(f"#{steps.get_attribute('id')}-error")
        assert error.is_visible() and "from 1 to" in error.inner_text()
        assert error.get_attribute("id") in steps.get_attribute("aria-describedby")
        assert page.evaluate("document.activeElement.name") == "steps"
        found += [f"invalid: {v}" for v in axe(page)]
        page.locator(f"{WIDGET} input[name=seed]").fill(str(SEED))
        steps.fill(str(STEPS))  # and then a click on Start, with the message going as the field is corrected
        assert error.is_hidden() and steps.get_attribute("aria-invalid") is None

        # Python that cannot start: the widget says so and offers the command line
        page.route("**/dist/latest.json", lambda route: route.abort())
        page.locator(f"{WIDGET} .mg-train__primary").click()
        page.wait_for_selector(STATE.format("error"), timeout=60_000)
        problem = page.locator(f"{WIDGET} .mg-train__problem").inner_text()
        assert "could not start" in problem and command() in problem, problem
        found += axe_in_both_schemes(page, "error")
        lap("error + axe")
        page.unroute("**/dist/latest.json")
        w.errors.clear()  # the failed request of the fault made above

        # the run: Try again starts it; the first losses are the command line's
        started = time.perf_counter()
        page.locator(f"{WIDGET} .mg-train__primary").press("Enter")
        page.wait_for_selector(STATE.format("running"), timeout=180_000)
        print(f"Python started in {time.perf_counter() - started:.1f} s")
        found += [f"running: {v}" for v in axe(page)]
        page.wait_for_function(f"document.querySelectorAll('{WIDGET} .mg-train__losses li').length >= 1")
        page.locator(f"{WIDGET} .mg-train__primary").click()  # Pause
        page.wait_for_selector(STATE.format("paused"))
        time.sleep(0.2)  # the tick under way, if any, lands
        held = page.locator(f"{WIDGET} .mg-train__losses li").count()
        time.sleep(0.6)
        assert page.locator(f"{WIDGET} .mg-train__losses li").count() == held, "Pause did not stop the work"
        found += axe_in_both_schemes(page, "paused")
        lap("paused + axe")
        page.locator(f"{WIDGET} .mg-train__primary").click()  # Resume
        page.wait_for_selector(STATE.format("done"), timeout=120_000)
        lap("done")
        shown = page.eval_on_selector_all(f"{WIDGET} .mg-train__losses li", "els => els.map((e) => e.textContent)")

        out, err = cli.communicate(timeout=120)
        assert cli.returncode == 0, err
        printed = re.findall(r"^step\s+\d+/\d+ \| loss (\d+\.\d+)", err, re.MULTILINE)
        assert len(printed) == STEPS, err
        print("page:", shown, "\ncli: ", printed)
        assert shown == printed

        # the checkpoint: downloaded, read by `microgpt sample`, the same model as the command line's
        with page.expect_download() as download:
            page.locator(f"{WIDGET} .mg-train__download").click()
        mine = tmp_path / download.value.suggested_filename
        download.value.save_as(mine)
        samples = [
            subprocess.run([*CLI, "sample", "--ckpt", str(ckpt), "-n", "5"], capture_output=True, text=True, check=True)
            for ckpt in (mine, tmp_path / "cli.ckpt.json")
        ]
        assert samples[0].stdout.count("\n") == 5 and samples[0].stdout == samples[1].stdout

        lap("download + sample")
        # leaving under instant navigation ends the worker
        assert len(python_workers(page)) == 1
        page.locator("article a[href$='gpt-backprop/']").first.click()  # the text's link (the nav's is folded)
        page.wait_for_url("**/gpt-backprop/")
        page.wait_for_function("() => !document.querySelector('.mg-train')")
        deadline = time.time() + 5
        while python_workers(page) and time.time() < deadline:
            time.sleep(0.1)
        assert python_workers(page) == []
        assert found == []
        assert w.problems() == []
    finally:
        cli.kill()
        w.close()
