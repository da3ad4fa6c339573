#!/usr/bin/env python
"""Lighthouse's accessibility score of the phone pages, in light and dark (issue 32, acceptance 5).

    .venv/bin/python scripts/lighthouse_a11y.py [--screenshots docs/screenshots] [--reports DIR] [--keep]

Lighthouse 13 is installed with npm into ~/.cache/bunco-lighthouse (BUNCO_LIGHTHOUSE_DIR) when it is
missing there; it drives Debian's Chromium (CHROME_PATH=/usr/bin/chromium), never a downloaded one.
The site runs as `make run` serves it (one uvicorn process, tests.conftest.start_server) on a free
port, on a fresh SQLite database in a temporary directory, migrated. What the pages show is made
through the project's own actions (a 12-player night with round 1 started and a few points at the
head table, a Fill or Bust table under way, a tournament's round 1 with a group's first turns), and
the phones' and the host's sessions through the pages themselves (the join link and a name tapped,
a seat tapped, the login form), with httpx. Lighthouse has no cookies of its own: each page's
session goes to it as a Cookie header (--extra-headers).

Each page is measured in both palettes. Lighthouse cannot emulate prefers-color-scheme, and the
header's switch is remembered in localStorage (static/js/theme.js), which no header reaches; so the
dark run starts Chromium with --force-dark-mode (the system's dark setting, which the page follows
as a phone set to dark), and the light run without it. Before the runs the script checks that the
flag still does that (Chromium's own --dump-dom of the home page: data-theme="dark").

Phones are Lighthouse's default mobile emulation (412x823); the two screens (the night's
projector, a table's screen) run with --preset=desktop. Prints a table of page x scheme x score and
the audits that cost points; exits 1 if a score is under 95.

--screenshots DIR also takes DIR/phone-light.png and DIR/phone-dark.png: the night's head-table
phone page at 390x844 (device scale 3) through Playwright and Debian's Chromium, color_scheme light
and dark.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import httpx

if TYPE_CHECKING:
    from playwright._impl._api_structures import SetCookieParam

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The server (tests.conftest.start_server) hashes passwords the fast way: the host made here too.
os.environ.setdefault("TESTS_FAST_PASSWORD_HASHING", "1")

Scheme = Literal["light", "dark"]
SCHEMES: tuple[Scheme, ...] = ("light", "dark")
THRESHOLD = 95
LIGHTHOUSE = "lighthouse@13"
CACHE = Path(os.environ.get("BUNCO_LIGHTHOUSE_DIR", Path.home() / ".cache" / "bunco-lighthouse"))
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
# docs/STACK_NOTES.md's flags for Debian's Chromium, without its host-resolver rule (Lighthouse's flag
# parser splits a value with spaces): nothing but 127.0.0.1 is asked for, and there is no internet.
CHROME_FLAGS = ("--headless=new --no-sandbox --disable-gpu --disable-quic --no-first-run "
                "--disable-background-networking --disable-component-update --disable-sync")
DARK_FLAG = "--force-dark-mode"  # prefers-color-scheme: dark, as a phone set to dark
NAMES = ["Alice", "Mary-Beth", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana", "Iris", "Jo", "Kim", "Lou"]
SEED = 11
PASSWORD = "bunco-night"
PHONE_SIZE = {"width": 390, "height": 844}


@dataclass
class Target:
    """A page Lighthouse opens: its path, the session it is opened with, phone or screen."""

    name: str
    path: str
    cookie: str = ""
    desktop: bool = False


@dataclass
class Result:
    target: Target
    scheme: Scheme
    score: int | None
    seconds: float
    failing: list[str] = field(default_factory=list)
    error: str = ""


# --- Lighthouse ---------------------------------------------------------------------------------


def lighthouse_binary() -> Path:
    """Lighthouse in the cache directory, installed there with npm first if missing."""
    binary = CACHE / "node_modules" / ".bin" / "lighthouse"
    if not binary.exists():
        if shutil.which("npm") is None:
            raise SystemExit("Lighthouse needs Node.js and npm (apt-get install -y nodejs npm).")
        CACHE.mkdir(parents=True, exist_ok=True)
        print(f"installing {LIGHTHOUSE} into {CACHE} ...", flush=True)
        subprocess.run(["npm", "install", "--prefix", str(CACHE), "--no-audit", "--no-fund", "--loglevel=error",
                        LIGHTHOUSE], check=True)
    return binary


def chrome_flags(scheme: Scheme) -> str:
    return CHROME_FLAGS + (f" {DARK_FLAG}" if scheme == "dark" else "")


def check_dark_flag(url: str) -> None:
    """The dark flag still turns a page dark in this Chromium, and its absence leaves it light."""
    for scheme in SCHEMES:
        dom = subprocess.run([CHROMIUM, *chrome_flags(scheme).split(), "--dump-dom", url + "/"],
                             capture_output=True, text=True, timeout=60).stdout
        if f'data-theme="{scheme}"' not in dom:
            raise SystemExit(f"Chromium with {chrome_flags(scheme)!r} did not show the home page {scheme}: "
                             "the dark runs would not measure the dark palette.")


def run_lighthouse(binary: Path, url: str, target: Target, scheme: Scheme, reports: Path) -> Result:
    slug = "".join(c if c.isalnum() else "-" for c in target.name.lower()).replace("--", "-")
    report = reports / f"{slug}-{scheme}.json"
    command = [
        str(binary), url + target.path, "--only-categories=accessibility", "--output=json",
        f"--output-path={report}", "--quiet", f"--chrome-flags={chrome_flags(scheme)}",
    ]
    if target.desktop:
        command.append("--preset=desktop")
    if target.cookie:
        command.append("--extra-headers=" + json.dumps({"Cookie": target.cookie}))
    started = time.monotonic()
    done = subprocess.run(command, env={**os.environ, "CHROME_PATH": CHROMIUM}, capture_output=True, text=True,
                          timeout=300)
    seconds = time.monotonic() - started
    if done.returncode != 0 or not report.exists():
        return Result(target, scheme, None, seconds, error=(done.stderr or done.stdout).strip()[-800:])
    data = json.loads(report.read_text())
    runtime_error = data.get("runtimeError")
    final_url = data.get("finalDisplayedUrl") or data.get("finalUrl", "")
    if runtime_error or not final_url.startswith(url + target.path.split("?")[0]):
        # e.g. a page that sent Lighthouse elsewhere (a login page, a join page): not the page asked for.
        return Result(target, scheme, None, seconds,
                      error=str(runtime_error or f"Lighthouse ended at {final_url}, not {target.path}"))
    category = data["categories"]["accessibility"]
    score = round(category["score"] * 100)
    return Result(target, scheme, score, seconds, failing=failing_audits(data))


def failing_audits(data: dict[str, Any]) -> list[str]:
    """The weighted audits of the accessibility category that did not pass, with their elements."""
    lines: list[str] = []
    for ref in data["categories"]["accessibility"]["auditRefs"]:
        audit = data["audits"][ref["id"]]
        if ref.get("weight", 0) <= 0 or audit.get("score") is None or audit["score"] >= 1:
            continue
        lines.append(f"{ref['id']} (weight {ref['weight']}): {audit['title']}")
        for item in (audit.get("details") or {}).get("items", [])[:6]:
            node = item.get("node") or {}
            explanation = " ".join(str(node.get("explanation", "")).split())
            lines.append(f"    {node.get('selector', '?')}: {node.get('snippet', '')[:120]}")
            if explanation:
                lines.append(f"      {explanation[:300]}")
    return lines


# --- The pages' contents, through the actions and the pages --------------------------------------


def csrf_of(client: httpx.Client) -> str:
    token = client.cookies.get("csrftoken")
    if token is None:
        raise SystemExit("the site set no csrftoken cookie")
    return token


def cookie_of(client: httpx.Client) -> str:
    return "; ".join(f"{name}={value}" for name, value in client.cookies.items())


def get(client: httpx.Client, path: str, showing: str = "") -> httpx.Response:
    """GET `path`, which must answer 200 with `showing` in the page: the state Lighthouse is to see."""
    response = client.get(path)
    response.raise_for_status()
    if showing not in response.text:
        raise SystemExit(f"{path} does not show {showing!r}: not the page to measure")
    return response


def seed(url: str) -> tuple[list[Target], str]:
    """Every page Lighthouse opens, and the night's player cookie for the screenshots."""
    from django.contrib.auth import get_user_model

    from games.links import join_path
    from games.night import actions
    from games.table.models import Table
    from tests.builders import make_table, make_tournament
    from tournaments import actions as tournament_actions
    from tournaments.links import group_path

    host_user = get_user_model().objects.create_user("host", password=PASSWORD)
    night = actions.start_night(names=NAMES, rng=random.Random(SEED), host_user=host_user, title="Maple Street night")
    actions.start_round(night)
    night.refresh_from_db()
    head_table = night.round_obj(1).seating()[0]
    for team, points in (("A", 5), ("A", 2), ("B", 1)):
        actions.record_tally(night=night, table_number=1, team=team, points=points)

    targets: list[Target] = []
    with httpx.Client(base_url=url, timeout=60) as phone:  # scans table 1's code, taps a name
        get(phone, join_path(night.code, 1))
        player = night.players.get(name=head_table[0])
        claimed = phone.post(f"/n/{night.code}/claim/", data={"player": str(player.pk),
                                                             "csrfmiddlewaretoken": csrf_of(phone)})
        if claimed.status_code != 302:
            raise SystemExit(f"claiming {player.name} answered {claimed.status_code}: {claimed.text[:300]}")
        get(phone, f"/n/{night.code}/play/", showing='class="team-score team-mine')
        player_cookie = cookie_of(phone)
        targets.append(Target("night: player's phone", f"/n/{night.code}/play/", player_cookie))

    with httpx.Client(base_url=url, timeout=60) as host:  # the login form
        get(host, "/accounts/login/")
        logged = host.post("/accounts/login/", data={"username": "host", "password": PASSWORD,
                                                     "csrfmiddlewaretoken": csrf_of(host)})
        if logged.status_code != 302:
            raise SystemExit(f"the host's login answered {logged.status_code}")
        get(host, f"/n/{night.code}/host/", showing='id="night-stream"')
        targets.append(Target("night: host's page", f"/n/{night.code}/host/", cookie_of(host)))
    targets.append(Target("night: projector", f"/n/{night.code}/screen/{night.screen_token}/", desktop=True))

    table: Table = make_table(3, seed=SEED)
    with httpx.Client(base_url=url, timeout=60) as phone:  # taps the first seat
        get(phone, f"/g/{table.code}/")
        claimed = phone.post(f"/g/{table.code}/claim/", data={"seat": "0", "csrfmiddlewaretoken": csrf_of(phone)})
        if claimed.status_code != 302:
            raise SystemExit(f"claiming a table's seat answered {claimed.status_code}: {claimed.text[:300]}")
        get(phone, f"/g/{table.code}/", showing="You play <strong>")
        targets.append(Target("table: seated phone", f"/g/{table.code}/", cookie_of(phone)))
    targets.append(Target("table: screen", f"/g/{table.code}/screen/{table.screen_token}/", desktop=True))

    director = get_user_model().objects.create_user("director", password=PASSWORD)
    tournament = make_tournament(director, 8)
    tournament_actions.start_round(tournament)
    current = tournament.current_round()
    assert current is not None
    group = current.groups.order_by("number").first()
    assert group is not None
    for points in (500, 0, 1250):
        tournament_actions.record_turn(group=group, entrant=group.players()[points % 3], points=points)
    with httpx.Client(base_url=url, timeout=60, follow_redirects=True) as phone:  # the table's QR link
        page = get(phone, group_path(group.code), showing='id="turn-form"')
        targets.append(Target("tournament: group's phone", page.url.raw_path.decode(), cookie_of(phone)))
    return targets, player_cookie


# --- Screenshots --------------------------------------------------------------------------------


def take_screenshots(url: str, path: str, cookie: str, out: Path) -> None:
    """The night's head-table phone page in each palette, as a phone set to it shows it."""
    from playwright.sync_api import expect, sync_playwright

    from scripts.shooting import launch_chromium, picture

    cookies: list[SetCookieParam] = [{"name": name, "value": value, "url": url}
                                     for name, value in (part.split("=", 1) for part in cookie.split("; "))]
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        for scheme in SCHEMES:
            context = browser.new_context(viewport={"width": PHONE_SIZE["width"], "height": PHONE_SIZE["height"]},
                                          device_scale_factor=3, is_mobile=True, has_touch=True,
                                          color_scheme=scheme, reduced_motion="reduce")
            context.add_cookies(cookies)
            page = context.new_page()
            page.goto(url + path)
            expect(page.locator("html")).to_have_attribute("data-theme", scheme)
            expect(page.locator("[data-live-badge]")).to_have_text("Live")
            expect(page.locator(".team-mine .team-points")).to_have_text("7")
            picture(page, out, f"phone-{scheme}.png")
            context.close()
        browser.close()


# --- The run ------------------------------------------------------------------------------------


def print_table(results: list[Result]) -> None:
    names = list(dict.fromkeys(result.target.name for result in results))
    width = max(len(name) for name in names)
    print()
    print(f"{'page'.ljust(width)}  {'light':>5}  {'dark':>5}")
    for name in names:
        cells = []
        for scheme in SCHEMES:
            found = [r for r in results if r.target.name == name and r.scheme == scheme]
            cells.append("" if not found else ("error" if found[0].score is None else str(found[0].score)))
        print(f"{name.ljust(width)}  {cells[0]:>5}  {cells[1]:>5}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", type=Path, metavar="DIR",
                        help="also take DIR/phone-light.png and DIR/phone-dark.png (e.g. docs/screenshots)")
    parser.add_argument("--reports", type=Path, metavar="DIR", help="keep Lighthouse's JSON reports in DIR")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (database, server log)")
    args = parser.parse_args()

    began = time.monotonic()
    binary = lighthouse_binary()
    workdir = Path(tempfile.mkdtemp(prefix="bunco-lighthouse-"))
    reports = args.reports or workdir / "reports"
    reports.mkdir(parents=True, exist_ok=True)
    from scripts.shooting import site_on_its_own_database

    # Streams as long as `make run`'s: the pages hold theirs while Lighthouse looks at them.
    server = site_on_its_own_database(workdir, "lighthouse")
    results: list[Result] = []
    try:
        check_dark_flag(server.url)
        targets, player_cookie = seed(server.url)
        for target in targets:
            for scheme in SCHEMES:
                result = run_lighthouse(binary, server.url, target, scheme, reports)
                results.append(result)
                shown = "error" if result.score is None else str(result.score)
                print(f"{target.name:28} {scheme:5} {shown:>5}  ({result.seconds:.0f} s)", flush=True)
        if args.screenshots is not None:
            take_screenshots(server.url, targets[0].path, player_cookie, args.screenshots)
    finally:
        server.stop()
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)

    print_table(results)
    below = [r for r in results if r.score is None or r.score < THRESHOLD]
    for result in results:
        if result.failing or result.error:
            print(f"\n{result.target.name}, {result.scheme}: {result.score if result.score is not None else 'error'}")
            for line in result.failing:
                print(f"  {line}")
            if result.error:
                print(f"  {result.error}")
    print(f"\n{len(results)} Lighthouse runs in {time.monotonic() - began:.0f} s; threshold {THRESHOLD}.")
    if below:
        print(f"{len(below)} below {THRESHOLD} (or failed): " + ", ".join(f"{r.target.name} {r.scheme}" for r in below))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
