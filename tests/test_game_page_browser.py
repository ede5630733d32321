"""The game page (generated/<edition>/game.html) in a real browser at phone width, by what a player
sees: a game started from the edition's set-up, events added through the forms (census, draw,
purchase), an illegal event refused with `civdsl game add`'s words and the game unchanged, undo,
export to a game file the command line reads and import of it, the games kept across a reload, and
two games kept apart. Headless Chromium through Selenium, as tests/test_companion_page.py; without
Chromium, chromedriver or Selenium these tests skip, except under CI (CI set)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import run_cli

from test_companion_page import PHONE, _console_errors, _resize, _shot, start_chrome
from test_game_page import pages

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
SEATS = [("anna", "Asia"), ("bruno", "Assyria"), ("chloe", "Babylon"), ("dario", "Crete")]


@pytest.fixture(scope="module")
def driver():
    drv = start_chrome({"browser": "ALL"})
    _resize(drv, PHONE, True)
    yield drv
    drv.quit()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gamepage") / "civ1980"
    folder.mkdir()
    game, companion = pages("civ1980")
    (folder / "game.html").write_text(game, encoding="utf-8")
    (folder / "companion.html").write_text(companion, encoding="utf-8")
    return folder / "game.html"


def _open(driver, path: Path, fresh: bool) -> None:
    driver.get(path.as_uri())
    if fresh:
        driver.execute_script("window.localStorage.clear()")
        driver.get(path.as_uri())
    for _ in range(300):
        if driver.execute_script("return document.documentElement.getAttribute('data-ready')") == "true":
            return
        time.sleep(0.02)
    raise AssertionError("the game page's interface was never built")


def _visible_text(driver, element_id: str) -> str:
    el = driver.find_element("id", element_id)
    assert el.is_displayed(), element_id
    return el.text


def _players(driver) -> dict[str, str]:
    """Each player's line as shown, by name."""
    return {line.split(" ", 1)[0]: line for line in _visible_text(driver, "players").splitlines()}


def _type(driver, element_id: str, text: str) -> None:
    el = driver.find_element("id", element_id)
    el.clear()
    el.send_keys(text)


def _select(driver, element_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", element_id)).select_by_value(value)


def _click(driver, element_id: str) -> None:
    el = driver.find_element("id", element_id)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def _new_game(driver, name: str, seats) -> None:
    _type(driver, "new-name", name)
    for i, (player, civ) in enumerate(seats, 1):
        if i > 3:
            _click(driver, "add-seat")
        _type(driver, f"seat-name-{i}", player)
        _select(driver, f"seat-civ-{i}", civ)
    _click(driver, "create")


def _event(driver, kind: str, *fields: str, player: str | None = None) -> None:
    """The event's form filled (its player, then its fields in order) and sent."""
    _select(driver, "event-kind", kind)
    if player is not None:
        _select(driver, f"ev-{kind}-0", player)
    for i, value in enumerate(fields, 1):
        if value is not None:
            _type(driver, f"ev-{kind}-{i}", value)
    _click(driver, "add")


def _next(driver, times: int = 1) -> None:
    for _ in range(times):
        _event(driver, "next")


def test_a_game_played_on_the_phone(driver, page, tmp_path):
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    _open(driver, page, fresh=True)
    assert "No game yet" in _visible_text(driver, "games")
    _new_game(driver, "Tuesday", SEATS)
    assert "Population expansion" in _visible_text(driver, "where")
    assert _players(driver)["anna"].startswith("anna (Asia): 0 cities, 0 tokens")

    _event(driver, "census", "9", "20", "0", player="anna")
    assert _players(driver)["anna"].startswith("anna (Asia): 9 cities, 20 tokens (36 in stock), 0 ships")
    assert "census: cities 0 -> 9" in _visible_text(driver, "log")

    # an illegal census: refused as `game add` refuses it, nothing changes
    before = _visible_text(driver, "players")
    _event(driver, "census", "99", None, None, player="bruno")
    refusal = _visible_text(driver, "refusal")
    assert "error[CIV142]: 99 cities on the board, but a player has 9" in refusal
    assert "Nothing was added" in refusal
    assert _visible_text(driver, "players") == before

    _next(driver, 6)
    assert "Acquire trade cards" in _visible_text(driver, "where")
    _event(driver, "draw", None, "5", player="anna")
    cards = _players(driver)["anna"].split("cards: ")[1]
    assert cards != "none" and len(cards.split(", ")) == 9  # one card a city

    _next(driver, 2)
    assert "Exchange trade cards" in _visible_text(driver, "where")
    _event(driver, "buy", "Pottery", "Ochre", None, player="anna")
    assert "error[CIV142]: the price of Pottery is" in _visible_text(driver, "refusal")
    assert "advances: none" in _players(driver)["anna"]
    _event(driver, "buy", "Pottery", cards, None, player="anna")
    assert "advances: Pottery; cards: none" in _players(driver)["anna"]
    _shot(driver, tmp_path, "game-page-phone")

    # undo drops the purchase; the log no longer holds it
    _click(driver, "undo")
    assert "advances: none" in _players(driver)["anna"]
    assert "buys Pottery" not in _visible_text(driver, "log")
    shown = _visible_text(driver, "players")

    # export: a game file `civdsl game show` replays to the same players
    _click(driver, "export")
    exported = None
    for _ in range(200):
        done = [p for p in downloads.iterdir() if p.suffix == ".yaml"]
        if done and done[0].stat().st_size and done[0].read_text(encoding="utf-8").endswith("\n"):
            exported = done[0]
            break
        time.sleep(0.05)
    assert exported is not None, list(downloads.iterdir())
    run = run_cli("game", "show", str(exported), "--no-log", cwd=ROOT)
    assert run.returncode == 0, run.stderr
    cli_players = [line.strip() for line in run.stdout.splitlines() if line.startswith("  ") and "A.S.T. space" in line]
    assert cli_players == shown.splitlines()

    # the command line adds an event to it; the page imports the file as another game
    run = run_cli("game", "add", str(exported), "buy", "anna", "Pottery", "pay", *cards.split(", "), cwd=ROOT)
    assert run.returncode == 0, run.stderr
    driver.find_element("id", "import-file").send_keys(str(exported))
    for _ in range(200):
        if "imported" in driver.find_element("id", "game-status").text:
            break
        time.sleep(0.05)
    assert "imported Tuesday.yaml as Tuesday (2)" in _visible_text(driver, "game-status")
    assert "advances: Pottery" in _players(driver)["anna"]

    # reload: both games kept, the one open last opens again
    _open(driver, page, fresh=False)
    assert "advances: Pottery" in _players(driver)["anna"]
    names = [b.text for b in driver.find_elements("css selector", "button.open-game")]
    assert names == ["Tuesday", "Tuesday (2)"]

    # undo after a reload replays the stored file without its last event, and the store keeps that
    _click(driver, "undo")
    assert "advances: none" in _players(driver)["anna"]
    _open(driver, page, fresh=False)
    assert "advances: none" in _players(driver)["anna"]
    assert _console_errors(driver) == []


def test_two_games_are_kept_apart(driver, page):
    _open(driver, page, fresh=True)
    _new_game(driver, "first", SEATS)
    _event(driver, "census", "3", "10", "1", player="bruno")
    _new_game(driver, "second", [("eva", "Asia"), ("fred", "Assyria"), ("gina", "Babylon"), ("hugo", "Crete")])
    assert set(_players(driver)) == {"eva", "fred", "gina", "hugo"}
    assert all(" 0 cities" in line for line in _players(driver).values())
    _event(driver, "census", "1", "5", "0", player="gina")
    _click_game(driver, "first")
    assert set(_players(driver)) == {"anna", "bruno", "chloe", "dario"}
    assert _players(driver)["bruno"].startswith("bruno (Assyria): 3 cities, 10 tokens")
    _select(driver, "log-player", "bruno")  # the log of one player, as `game show --player`
    lines = _visible_text(driver, "log").splitlines()
    assert lines and all("bruno" in line for line in lines)
    _click_game(driver, "second")
    assert _players(driver)["gina"].startswith("gina (Babylon): 1 city, 5 tokens")

    # rename and delete act on the open game only
    _type(driver, "rename-name", "second game")
    _click(driver, "rename")
    driver.execute_script("window.confirm = () => true")
    _click(driver, "delete")
    names = [b.text for b in driver.find_elements("css selector", "button.open-game")]
    assert names == ["first"]
    assert not driver.find_element("id", "table").is_displayed()
    assert _console_errors(driver) == []


def _click_game(driver, name: str) -> None:
    for button in driver.find_elements("css selector", "button.open-game"):
        if button.text == name:
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
            button.click()
            return
    raise AssertionError(f"no game {name} in the list")


def test_every_control_is_labelled_and_nothing_is_wider_than_the_phone(driver, page):
    from test_companion_page import UNLABELLED

    _open(driver, page, fresh=True)
    _new_game(driver, "a game with a long name " + "x" * 80, SEATS)
    for kind in ("census", "draw", "buy-cards", "trade", "choose", "buy", "discard", "ast", "leave", "next"):
        _select(driver, "event-kind", kind)
        assert driver.execute_script(UNLABELLED) == [], kind
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= PHONE[0], width
    assert _console_errors(driver) == []


def test_rule_options_read_as_the_rulebook_words_them_on_both_pages(driver, page):
    """A rule option's checkbox is labelled with the rulebook's `option NAME "..."` text (which
    reading it is, and the paragraph), on the game page's new-game form and on the companion page:
    never the option's command-line name."""
    import civdsl

    docs = civdsl.load("civ1980").module.OPTION_DOCS
    assert docs and all(docs.values())
    for path, selector in ((page, "#new-game fieldset.options label"),
                           (page.with_name("companion.html"), "#app fieldset.options label")):
        if path.name == "game.html":
            _open(driver, path, fresh=True)
        else:
            driver.get(path.as_uri())
            for _ in range(300):
                if driver.find_elements("css selector", selector):
                    break
                time.sleep(0.02)
        labels = driver.find_elements("css selector", selector)
        assert [x.text for x in labels if x.is_displayed()] == list(docs.values()), path.name
        assert not any("_" in x.text for x in labels)
        assert _console_errors(driver) == []


def test_a_damaged_stored_game_is_reported_and_the_others_kept(driver, page):
    """A stored game whose text is not a game file (edited in the browser's storage) opens with the
    reader's error at its line; the other games open as they were."""
    _open(driver, page, fresh=True)
    _new_game(driver, "good", SEATS)
    _event(driver, "census", "2", "8", "0", player="anna")
    driver.execute_script("""
      const store = JSON.parse(localStorage.getItem('civdsl-games:civ1980'));
      store.games.push({name: 'broken', file: 'civdsl_game: 1\\nedition: civ1980\\n'});
      store.games.push({name: '__proto__', file: 42});
      store.open = 'broken';
      localStorage.setItem('civdsl-games:civ1980', JSON.stringify(store));
    """)
    _open(driver, page, fresh=False)
    status = _visible_text(driver, "game-status")
    assert status.startswith("Cannot read the game broken: error[CIV144]: line 1, column 1: "), status
    names = [b.text for b in driver.find_elements("css selector", "button.open-game")]
    assert names == ["good", "broken"]  # a game without a text is no game
    _click_game(driver, "good")
    assert _players(driver)["anna"].startswith("anna (Asia): 2 cities, 8 tokens")
    assert _console_errors(driver) == []


def test_the_census_form_records_treasury_paid_for_ships(driver, page, tmp_path):
    """At 1980's ship step (43.4: a ship costs treasury tokens), the census form's treasury field
    lowers the player's treasury as `census PLAYER treasury=N` does on the command line."""
    from civdsl.ledger import gamefile

    gf = gamefile.read(ROOT / "tests" / "games" / "civ1980-4.yaml")
    at = next(i for i, e in enumerate(gf.events) if e["turn"] >= 3 and e["step"] == 4)
    path = tmp_path / "ships.yaml"
    path.write_text(gamefile.text(gamefile.GameFile(gf.setup, gf.events[:at])), encoding="utf-8")
    _open(driver, page, fresh=True)
    _import(driver, path)
    assert "Construct ships" in _visible_text(driver, "where")
    name, line = next((n, x) for n, x in _players(driver).items() if int(x.split("treasury ")[1].split(",")[0]) > 0)
    treasury = int(line.split("treasury ")[1].split(",")[0])
    _event(driver, "census", None, None, None, str(treasury - 1), player=name)
    assert f"treasury {treasury - 1}," in _players(driver)[name]
    assert f"{name}: census: treasury {treasury} -> {treasury - 1} (spent on the board)" in _visible_text(driver, "log")
    assert _console_errors(driver) == []


def test_a_calamity_waits_for_its_victims_choice(driver, page, tmp_path):
    """A game imported at its calamity step: ending the step is refused with the choices the rules
    leave to the victim (CIV143), one of them taken into the typed line in a tap; the victim's
    choice given through the form is in the log."""
    from civdsl.ledger import gamefile

    gf = gamefile.read(ROOT / "tests" / "games" / "civ1980-4.yaml")
    at = next(i for i, e in enumerate(gf.events) if e["do"] == "choose")
    path = tmp_path / "calamities.yaml"
    path.write_text(gamefile.text(gamefile.GameFile(gf.setup, gf.events[:at])), encoding="utf-8")
    _open(driver, page, fresh=True)
    driver.find_element("id", "import-file").send_keys(str(path))
    for _ in range(200):
        if "imported" in driver.find_element("id", "game-status").text:
            break
        time.sleep(0.05)
    assert "Resolve calamities" in _visible_text(driver, "where")
    _next(driver)
    refusal = _visible_text(driver, "refusal")
    assert refusal.startswith("error[CIV143]: Civil War against bruno needs what the rules leave to the players"), refusal
    driver.find_element("css selector", "#refusal button.take").click()
    typed = driver.find_element("id", "typed").get_attribute("value")
    assert typed.startswith('choose bruno "Civil War" beneficiary=NAME'), typed
    _select(driver, "event-kind", "choose")
    _select(driver, "ev-choose-0", "bruno")
    _select(driver, "ev-choose-1", "Civil War")
    _type(driver, "ev-choose-2", "beneficiary=anna")
    _click(driver, "add")
    assert "bruno chooses for Civil War: beneficiary anna" in _visible_text(driver, "log")
    assert _console_errors(driver) == []


def _import(driver, path: Path) -> None:
    driver.find_element("id", "import-file").send_keys(str(path))
    for _ in range(400):
        if "imported" in driver.find_element("id", "game-status").text:
            return
        time.sleep(0.05)
    raise AssertionError(driver.find_element("id", "game-status").text)


def _cli_show(path: Path, *args: str) -> list[str]:
    """`civdsl game show`'s heading and players' lines (as the page shows them, without their indent)."""
    run = run_cli("game", "show", str(path), "--no-log", *args, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    return [lines[0]] + [line.strip() for line in lines if line.startswith("  ") and "A.S.T. space" in line]


def _page_show(driver) -> list[str]:
    return [_visible_text(driver, "where")] + _visible_text(driver, "players").splitlines()


def test_a_draw_for_everyone_and_a_look_at_the_past(driver, page, tmp_path):
    """A game imported where a draw step begins: one tap draws for every player, as `civdsl game
    draw` does on the same file (the same players after it); a tap on a line of the log shows the
    game after its event as `game show --event N` does, without the forms, and the way back; a turn
    picked shows `game show --turn N`; everything labelled and within the phone's width."""
    from civdsl.ledger import gamefile

    from test_companion_page import UNLABELLED

    gf = gamefile.read(ROOT / "tests" / "games" / "civ1980-4.yaml")
    at = [i for i, e in enumerate(gf.events) if e["do"] == "draw" and gf.events[i - 1]["do"] != "draw"][2]
    path = tmp_path / "drawing.yaml"
    path.write_text(gamefile.text(gamefile.GameFile(gf.setup, gf.events[:at])), encoding="utf-8")
    _open(driver, page, fresh=True)
    _import(driver, path)
    before = _page_show(driver)
    assert before == _cli_show(path)
    _shot(driver, tmp_path, "game-page-draw")
    _click(driver, "draw-all")
    status = _visible_text(driver, "game-status")
    assert status.startswith("drew for everyone with seed "), status
    run = run_cli("game", "draw", str(path), cwd=ROOT)  # the command line, on the same file
    assert run.returncode == 0, run.stderr
    assert f"seed {status.split('seed ')[1].split()[0]}" in run.stdout
    after = _page_show(driver)
    assert after == _cli_show(path) and after[1:] != before[1:]  # every hand drawn, as the command drew them
    kept = driver.execute_script("""const store = JSON.parse(localStorage.getItem('civdsl-games:civ1980'));
      return store.games.find((g) => g.name === store.open).file;""")
    assert kept == path.read_text(encoding="utf-8")  # the draws' lines appended: the command's bytes
    drawn = [line for line in _visible_text(driver, "log").splitlines() if " draws " in line]
    assert len(drawn) >= 4 and all(line in _visible_text(driver, "game-status") for line in drawn[-4:])
    _click(driver, "draw-all")  # again: nobody is left to draw, nothing is added
    assert "every player with cities has drawn in this step" in _visible_text(driver, "game-status")
    assert _page_show(driver) == after

    # a tap on an earlier line of the log: the game after its event, as `game show --event N`
    line = driver.find_elements("css selector", "#log button.log-line")[40]
    upto = int(line.get_attribute("data-upto"))
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", line)
    line.click()
    assert f"after event {upto} of {at + len(drawn[-4:])}" in _visible_text(driver, "past")
    assert _page_show(driver) == _cli_show(path, "--event", str(upto))
    assert not driver.find_elements("id", "add-event") and not driver.find_elements("id", "undo")
    assert driver.execute_script(UNLABELLED) == []
    assert driver.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]
    _shot(driver, tmp_path, "game-page-past")
    _click(driver, "present")
    assert not driver.find_elements("id", "past")
    assert _page_show(driver) == after and driver.find_element("id", "add-event").is_displayed()

    # a turn picked: the game at its end, as `game show --turn N` (the second reached from the first)
    _select(driver, "look-back", str(sum(1 for e in gf.events[:at] if e["turn"] <= 1)))
    assert _page_show(driver) == _cli_show(path, "--turn", "1")
    _select(driver, "look-back", str(sum(1 for e in gf.events[:at] if e["turn"] <= 2)))
    assert _page_show(driver) == _cli_show(path, "--turn", "2")
    assert "Back to the present" in _visible_text(driver, "past")
    _select(driver, "look-back", "")
    assert not driver.find_elements("id", "past") and _page_show(driver) == after
    assert driver.execute_script(UNLABELLED) == []
    assert driver.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]
    assert _console_errors(driver) == []
