#!/usr/bin/env python3
"""Headless-Chromium checks of issue 22's item 2: every declared key editable on the page.

Every row of `mercurial params --json` (its nested rows included) has a control whose
`data-key` is its schema path (a list's rows for its first element, in/out's for each of
the two); none of the lists, stops or in/out is a raw JSON field. On a scene with a
gradient backdrop, two point lights and an animation: a gradient stop added changes the
preview, a stop's location out of range is refused by the control and undo takes the stop
back; in set to fade with a duration is saved so; a point light removed comes back with
undo; a drop shadow's box turns it on, showing its rows, and off. On a scene with one
layer: removing it is refused, a layer added and its text set puts ink where it goes,
moving it up and taking out its size are each undone, a 17th layer is refused and undo
takes the text back; a scene key no layer takes is marked with its warning. No row with a declared kind is a raw JSON field: dynamics.delays's
numbers are added, edited, removed and undone one whole change at a time; vine.path switched
to points gets a point added and dragged on the preview, both saved; the file changed on disk
shows in them. A transition's extent is set with its four fields and saved, a partial one is
refused with the server's error, emptied it is left out, and undo takes each step back.

Usage: editor-groups-test.py MERCURIAL_BINARY [--pid-file FILE] [--screenshot FILE] [--extent-screenshot FILE]
A variable font's axes and OpenType features are typed as words in controls of their own.
The title's text turned into styled runs takes inline markup in its box. A plate is turned on
by its box, its padding typed as [x, y] and its colour set, each undone.
Exits 1 on a failed check; prints PASS at the end.
"""
import argparse
import json
import os
import subprocess

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from editor_browser import Editor, check, retype, reveal, wait_for


def idle(driver):
    wait_for(lambda: not driver.execute_script("return window.__busy()"), "the page to finish its changes", 60)


def undo(driver):
    idle(driver)
    driver.find_element(By.TAG_NAME, "header").click()
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()


def find(driver, css):
    idle(driver)
    return reveal(driver, driver.find_element(By.CSS_SELECTOR, css))


def click(driver, css):
    find(driver, css).click()


def frame_after(e, revision):
    """The preview's pixels once the frame of `revision` (or later) is on screen."""
    wait_for(lambda: e.driver.execute_script("return window.__pending() === 0 && window.__shown && window.__shown.revision")
             >= revision, "the frame of revision %d" % revision, 60)
    return e.api("/frame.rgba")


def ink_rows(rgba, width):
    """The first and last rows of the frame with any ink (alpha > 0)."""
    rows = [y for y in range(len(rgba) // (4 * width)) if any(rgba[(y * width + x) * 4 + 3] for x in range(0, width, 2))]
    return (rows[0], rows[-1]) if rows else None


def coverage(e, binary, scene):
    driver = e.driver
    table = json.loads(subprocess.run([binary, "params", "--json"], check=True, capture_output=True, text=True, timeout=30).stdout)
    keys = [r["key"] for r in table["parameters"] + table["nested"]]
    present = set(driver.execute_script("return [...document.querySelectorAll('[data-key]')].map((e) => e.dataset.key)"))

    def candidates(key):
        if "|" in key:      # in|out(fade).duration: one control for in, one for out
            prefix, rest = key.split("(", 1)
            return [[k + "(" + rest] for k in prefix.split("|")]
        if isinstance(scene.get(key.split("[]")[0]), list) and scene[key.split("[]")[0]]:
            return [[key.replace("[]", "[0]")]]     # a list the scene has: its first element's control
        return [[key, key.split("[]")[0]]]

    missing = [k for k in keys if not all(any(c in present for c in group) for group in candidates(k))]
    check(not missing, "a control for each of the %d rows of params --json, nested ones included (missing: %s)" % (len(keys), missing))
    fallbacks = driver.execute_script("return [...document.querySelectorAll('input.json')].map((e) => e.closest('[data-key]').dataset.key)")
    listed = ("backgroundGradient", "reflection", "pointLights", "layers", "in", "out", "dynamics.ropes", "dynamics.bodyOverrides")
    raw = [k for k in fallbacks if k.split(".")[0].split("[")[0].split("(")[0] in listed[:6] or k.startswith(listed[6:])]
    check(not raw, "no list, stop, layer or in/out control is a raw JSON field (%s)" % raw)
    # The rest have controls made from their kind (rectangle, array, route): only a track's keyframes and fallback fonts stay JSON.
    declared = [k for k in fallbacks if not k.startswith(("animation.tracks", "fallbackFonts"))]
    check(not declared, "no row with a declared kind is a raw JSON field (%s)" % declared)
    print("JSON fields left, for values the schema gives no rows: %d (%s)" % (len(fallbacks), ", ".join(fallbacks)))


def stops_in_out_and_lights(e, screenshot):
    driver = e.driver
    gradient = lambda: e.state()["editor"]["blocks"]["backgroundGradient"]
    revision = e.state()["editor"]["revision"]
    before = frame_after(e, revision)
    click(driver, '.stops[data-key="backgroundGradient"] button[data-action="add"]')
    wait_for(lambda: len(gradient()["colors"]) == 3, "the third stop on the server", 30)
    added = gradient()
    check(added["locations"] == sorted(added["locations"]), "the stops stay in location order: %s" % added["locations"])
    after = frame_after(e, e.state()["editor"]["revision"])
    changed = sum(1 for i in range(0, len(after), 4) if after[i:i + 4] != before[i:i + 4])
    check(changed > 0, "the added stop changes the preview (%d pixels)" % changed)

    # A location out of range: the control says so, nothing changes; undo takes the added stop back.
    revision = e.state()["editor"]["revision"]
    field = find(driver, '[data-key="backgroundGradient.locations[1]"]')
    retype(field, "1.5" + Keys.ENTER)
    box = driver.find_element(By.CSS_SELECTOR, '.error[data-error-for="backgroundGradient"]')
    wait_for(lambda: box.is_displayed() and "0…1" in box.text, "the stop's error by the stops", 30)
    check(e.state()["editor"]["revision"] == revision and gradient() == added, "the refused location changed nothing: %s" % box.text)
    undo(driver)
    wait_for(lambda: len(gradient()["colors"]) == 2, "undo to take the added stop back", 30)
    wait_for(lambda: not box.is_displayed(), "the error to go with the undo", 30)

    # in: fade, with a duration, saved so.
    Select(find(driver, '.row[data-key="in.type"] select')).select_by_value("fade")
    wait_for(lambda: (e.state()["editor"]["document"].get("in") or {}).get("type") == "fade", "in = fade on the server", 30)
    idle(driver)
    duration = driver.find_element(By.CSS_SELECTOR, '.row[data-key="in(fade).duration"] input[type=text]')
    wait_for(lambda: duration.is_displayed(), "fade's rows", 30)
    retype(duration, "0.7" + Keys.ENTER)
    wait_for(lambda: e.state()["editor"]["document"]["in"].get("duration") == 0.7, "in.duration 0.7 on the server", 30)
    click(driver, "#save")
    wait_for(lambda: driver.find_element(By.ID, "status").text.startswith("saved "), "the save", 30)
    saved = json.load(open(e.scene))
    check(saved.get("in") == {"type": "fade", "duration": 0.7}, "the saved scene has in = fade for 0.7 s: %s" % saved.get("in"))

    # A point light clicked on the preview, removed by its group's button, and back with undo.
    lights = lambda: e.state()["editor"]["blocks"]["pointLights"]
    first = lights()
    click(driver, '.point-dot[data-key="pointLights[1]"]')
    item = driver.find_element(By.CSS_SELECTOR, 'details.item[data-key="pointLights[1]"]')
    wait_for(lambda: item.get_attribute("open") is not None, "the clicked light's group to open", 30)
    click(driver, 'details.item[data-key="pointLights[1]"] button[data-action="remove"]')
    wait_for(lambda: len(lights()) == 1, "the light to go", 30)
    check(lights()[0]["color"] == first[0]["color"], "the other light stays")
    wait_for(lambda: len(driver.find_elements(By.CSS_SELECTOR, ".point-dot.light")) == 1, "its dot to go", 30)
    undo(driver)
    wait_for(lambda: len(lights()) == 2, "undo to bring the light back", 30)
    check(lights() == first, "undo brings back both lights as they were: %s" % lights())
    # An optional block's box: on, the block with its keys' defaults and their rows shown; off, none.
    shadow = lambda: e.state()["editor"]["blocks"].get("dropShadow")
    click(driver, '.row[data-key="dropShadow"] input[type=checkbox]')
    wait_for(lambda: shadow() is not None, "a drop shadow on the server", 30)
    opacity = driver.find_element(By.CSS_SELECTOR, '.row[data-key="dropShadow.opacity"]')
    wait_for(lambda: opacity.is_displayed(), "the shadow's rows", 30)
    click(driver, '.row[data-key="dropShadow"] input[type=checkbox]')
    wait_for(lambda: shadow() is None, "the drop shadow to go", 30)
    wait_for(lambda: not opacity.is_displayed(), "the shadow's rows to hide", 30)

    if screenshot:
        for css in ('.stops[data-key="backgroundGradient"]', 'details.item[data-key="pointLights[1]"] .row', '.row[data-key="in.type"]'):
            find(driver, css)
        driver.execute_script("document.querySelector('aside').scrollTop = document.querySelector('[data-group=\"pointLights\"]').offsetTop - 40")
        driver.save_screenshot(screenshot)
        print("screenshot: " + screenshot)


def unused_keys(e):
    """A scene key no layer takes (every layer sets its own text) is marked, with the warning as its tooltip."""
    driver = e.driver
    idle(driver)
    row = reveal(driver, driver.find_element(By.CSS_SELECTOR, '#controls .row[data-key="text"]'))
    classes = row.get_attribute("class").split()
    check("unused" in classes, "the scene's text, which no layer takes, is marked: %s" % classes)
    check("applies to no layer" in (row.get_attribute("title") or ""), "its tooltip is the warning: %r" % row.get_attribute("title"))
    size = driver.find_element(By.CSS_SELECTOR, '#controls .row[data-key="size"]')
    check("unused" not in size.get_attribute("class").split(), "the scene's size, which the layer takes, is not marked")


def layers(e):
    driver = e.driver
    layers = lambda: e.state()["editor"]["document"].get("layers")
    box = driver.find_element(By.CSS_SELECTOR, '.error[data-error-for="layers"]')
    revision = e.state()["editor"]["revision"]
    width = e.state()["editor"]["blocks"] and 480
    before = ink_rows(frame_after(e, revision), width)
    click(driver, 'details.item[data-key="layers[0]"] button[data-action="remove"]')
    wait_for(lambda: box.is_displayed() and "give 1 to 16" in box.text, "the refusal to remove the last layer", 30)
    check(e.state()["editor"]["revision"] == revision and len(layers()) == 1, "the last layer stays: %s" % box.text)

    click(driver, '.list[data-key="layers"] > button[data-action="add"]')
    wait_for(lambda: len(layers()) == 2, "the second layer on the server", 30)
    wait_for(lambda: not box.is_displayed(), "the error to go", 30)
    area = find(driver, '.row[data-key="layers[1].text"] textarea')
    retype(area, "Under")
    wait_for(lambda: layers()[1].get("text") == "Under", "the layer's text on the server", 30)
    after = ink_rows(frame_after(e, e.state()["editor"]["revision"]), width)
    check(before and after and after[1] - after[0] > before[1] - before[0] + 8,
          "the new layer puts ink under the title: ink rows %s -> %s" % (before, after))

    # A track moves one layer's key: a layer's size has a ◆, the top level's rows are marked to hide theirs
    # (this scene has no animation, so every ◆ is hidden: the marks are what is checked).
    marks = driver.execute_script(
        "const row = (k) => document.querySelector('.row[data-key=\"' + k + '\"]');"
        "return [!!row('layers[1].size').querySelector('.key'), row('layers[1].size').classList.contains('layered'),"
        "        row('shininess').classList.contains('layered')]")
    check(marks == [True, False, True], "with layers, ◆ is on a layer's keys and not on the top level's %s" % marks)

    # The new layer moved up, then taken out of the layer by undo; its size key unset with ×, and back with undo.
    names = lambda: [layer.get("name") for layer in layers()]
    click(driver, 'details.item[data-key="layers[1]"] button[data-action="up"]')
    wait_for(lambda: names() == ["layer2", "a"], "the layers' new order", 30)
    undo(driver)
    wait_for(lambda: names() == ["a", "layer2"], "undo to put the order back", 30)
    click(driver, '.row[data-key="layers[1].size"] button[data-action="unset"]')
    wait_for(lambda: "size" not in layers()[1], "layer 2's size to be taken out", 30)
    undo(driver)
    wait_for(lambda: "size" in layers()[1], "undo to put the size back", 30)
    # `below` chooses among the other layers' names, or none (the layer's own anchor).
    below = Select(find(driver, '.row[data-key="layers[1].below"] select'))
    options = [o.get_attribute("value") for o in below.options]
    check(options == ["", "a"] and below.first_selected_option.get_attribute("value") == "a",
          "layer 2's below offers none and the other layer's name, showing a (%s)" % options)
    below.select_by_value("")
    wait_for(lambda: "below" not in layers()[1], "below none: the key taken out of the layer", 30)
    Select(find(driver, '.row[data-key="layers[1].below"] select')).select_by_value("a")
    wait_for(lambda: layers()[1].get("below") == "a", "below a again", 30)

    # A 17th layer is refused by the list; undo then takes the text back.
    revision = e.state()["editor"]["revision"]
    driver.execute_script("setWhole('layers', Array.from({ length: 17 }, (_, i) => ({ text: 'L' + i })))")
    wait_for(lambda: box.is_displayed() and "17 layers" in box.text, "the refusal of a 17th layer", 30)
    check(e.state()["editor"]["revision"] == revision and len(layers()) == 2, "nothing lost: %s" % box.text)
    undo(driver)
    wait_for(lambda: layers()[1].get("text") == "Layer 2", "undo to take the text back (the last change not undone)", 30)


def delays_and_route(e):
    """A list of numbers (dynamics.delays) added to, edited, taken from and undone, one whole
    change each; the vine's route switched to points, a point added and dragged on the preview;
    the saved scene holds both."""
    driver = e.driver
    delays = lambda: e.state()["editor"]["document"]["dynamics"].get("delays")
    row = '.row[data-key="dynamics.delays"]'
    # The dynamics keys the file leaves out show the defaults the scene gets, not empty fields.
    bodies = find(driver, '.row[data-key="dynamics.bodies"] select').get_attribute("value")
    direction = [f.get_attribute("value") for f in driver.find_elements(By.CSS_SELECTOR, '.row[data-key="dynamics.gravity.direction"] input')]
    check(bodies == "glyphs" and direction == ["0", "1"], "dynamics' left-out keys show their defaults (%s, %s)" % (bodies, direction))
    click(driver, row + ' .tuples > button[data-action="add"]')
    wait_for(lambda: delays() == [0.2, 0.4, 0.4], "Add to append a copy of the last delay", 30)
    retype(find(driver, row + ' .tuple[data-key="dynamics.delays[2]"] input'), "1.5" + Keys.ENTER)
    wait_for(lambda: delays() == [0.2, 0.4, 1.5], "the third delay edited on the server", 30)
    click(driver, row + ' .tuple[data-key="dynamics.delays[0]"] button[data-action="remove"]')
    wait_for(lambda: delays() == [0.4, 1.5], "the first delay removed", 30)
    # Found again each time: the list's lines are made again when their count changes.
    first = lambda: driver.find_element(By.CSS_SELECTOR, row + ' .tuple[data-key="dynamics.delays[0]"] input').get_attribute("value")
    wait_for(lambda: first() == "0.4", "the fields to show the list left", 30)
    undo(driver)
    wait_for(lambda: delays() == [0.2, 0.4, 1.5], "undo to bring the removed delay back (one step)", 30)
    undo(driver)
    wait_for(lambda: delays() == [0.2, 0.4, 0.4], "undo to take the edit back (one step)", 30)
    wait_for(lambda: driver.find_element(By.CSS_SELECTOR, row + ' .tuple[data-key="dynamics.delays[2]"] input')
             .get_attribute("value") == "0.4", "the field to show the undone value", 30)

    route = lambda: e.state()["editor"]["blocks"]["vine"]["path"]
    Select(find(driver, '.row[data-key="vine.path"] select')).select_by_value("points")
    wait_for(lambda: isinstance(route(), list) and len(route()) == 2, "the route to become two points", 30)
    click(driver, '.row[data-key="vine.path"] .tuples > button[data-action="add"]')
    wait_for(lambda: len(route()) == 3, "a third point", 30)
    added = route()[2]
    check(added == [route()[1][0] + 40, route()[1][1]], "the new point is 40 px right of the last: %s" % route())
    idle(driver)
    dot = driver.find_element(By.CSS_SELECTOR, '.point-dot[data-key="vine.path[2]"]')
    ActionChains(driver).click_and_hold(dot).move_by_offset(-20, -10).move_by_offset(-20, -10).release().perform()
    moved = wait_for(lambda: route()[2] if route()[2][1] < added[1] - 5 else None, "the dragged point to reach the server", 30)
    check(moved[0] < added[0], "dragging the point left and up moved it: %s -> %s" % (added, moved))
    idle(driver)
    x = lambda: driver.find_element(By.CSS_SELECTOR, '.row[data-key="vine.path"] .tuple[data-key="vine.path[2]"] input').get_attribute("value")
    wait_for(lambda: x() == str(moved[0]), "its x field to show where it was dragged (%s)" % x(), 30)
    click(driver, "#save")
    wait_for(lambda: driver.find_element(By.ID, "status").text.startswith("saved "), "the save", 30)
    saved = json.load(open(e.scene))
    check(saved["dynamics"].get("delays") == [0.2, 0.4, 0.4] and saved["vine"]["path"] == route(),
          "the saved scene has the delays and the route: %s, %s" % (saved["dynamics"].get("delays"), saved["vine"]["path"]))

    # The file changed on disk: the controls show its values, the route's dots go.
    saved["dynamics"]["delays"], saved["vine"]["path"] = [0.1], "arc"
    with open(e.scene + ".tmp", "w") as f:
        json.dump(saved, f)
    os.replace(e.scene + ".tmp", e.scene)
    shown = lambda: driver.execute_script("""
        return [[...document.querySelectorAll('.row[data-key="dynamics.delays"] .tuple input')].map((f) => f.value),
                document.querySelector('.row[data-key="vine.path"] select').value, document.querySelectorAll('.point-dot.route').length]""")
    wait_for(lambda: shown() == [["0.1"], "arc", 0], "the controls to show the file's new delays and route", 30)


def type_keys(e):
    """Issue 37's keys have controls of their own: a variable font's axes typed as "wght 800"
    thicken the preview's strokes, each axis has a slider whose ◆ makes a track, OpenType
    features typed as words reach the scene, a value
    that is no number is refused with the server's message, and undo takes the axes back."""
    driver = e.driver
    document = lambda: e.state()["editor"]["document"]
    ink = lambda: sum(e.api("/frame.rgba")[3::4])
    idle(driver)
    light = ink()
    retype(find(driver, '.row[data-key="variations"] input'), "wght 800" + Keys.ENTER)
    wait_for(lambda: document().get("variations") == {"wght": 800}, "the weight axis set on the server", 30)
    heavy = wait_for(lambda: ink() if ink() > 1.3 * light else None, "the preview's strokes to thicken (ink %d before)" % light, 30)
    check(heavy > 1.3 * light, "wght 800 thickens the preview: ink %d -> %d" % (light, heavy))
    # The font's axes have sliders of their own: the weight's shows 800, its range is Inter's, and its ◆ makes a track.
    field = lambda: driver.find_element(By.CSS_SELECTOR, '.row[data-key="variations.wght"] input[type=text]')
    wait_for(lambda: field().get_attribute("value") == "800", "the weight's slider to show 800", 30)
    check(driver.find_elements(By.CSS_SELECTOR, '.row[data-key="variations.slnt"]'), "a slider for the slant axis too")
    click(driver, '.row[data-key="variations.wght"] button.key')
    tracks = lambda: ((document().get("animation") or {}).get("tracks") or {})
    wait_for(lambda: "variations.wght" in tracks(), "the weight's ◆ to add a track (%s)" % tracks(), 30)
    check(tracks()["variations.wght"][0]["value"] == 800, "the keyframe holds the weight: %s" % tracks()["variations.wght"])
    # An axis the scene does not set is keyframed at the font's default (slnt 0).
    click(driver, '.row[data-key="variations.slnt"] button.key')
    wait_for(lambda: "variations.slnt" in tracks(), "the slant's ◆ to add a track (%s)" % tracks(), 30)
    check(tracks()["variations.slnt"][0]["value"] == 0, "the unset slant keyframed at its default: %s" % tracks()["variations.slnt"])
    retype(find(driver, '.row[data-key="features"] input'), "zero tnum" + Keys.ENTER)
    wait_for(lambda: document().get("features") == ["zero", "tnum"], "the features set on the server", 30)
    retype(find(driver, '.row[data-key="variations"] input'), "wght heavy" + Keys.ENTER)
    error = lambda: driver.find_element(By.CSS_SELECTOR, '.error[data-error-for="variations"]')
    wait_for(lambda: error().is_displayed() and "variations" in error().text, "the refused axis's message", 30)
    check(document().get("variations") == {"wght": 800}, "a refused value changes nothing: %s" % document().get("variations"))
    undo(driver)
    wait_for(lambda: document().get("features") is None, "undo to take the features back (%s)" % document().get("features"), 30)
    undo(driver)
    wait_for(lambda: "variations.slnt" not in tracks(), "undo to take the slant's keyframe back (%s)" % tracks(), 30)
    undo(driver)
    wait_for(lambda: "variations.wght" not in tracks(), "undo to take the keyframe back (%s)" % tracks(), 30)
    undo(driver)
    wait_for(lambda: document().get("variations") is None, "undo to take the axis back (%s)" % document().get("variations"), 30)

    # A text path through canvas points: its points are handles on the preview, dragged as a vine's.
    points = lambda: (e.state()["editor"]["document"].get("textPath") or {}).get("points")
    # Switched to points from its menu, the path gets two points across the canvas (the type alone would be refused).
    click(driver, '.row[data-key="textPath"] input[type=checkbox]')
    wait_for(lambda: e.state()["editor"]["document"].get("textPath") is not None, "the text path turned on", 30)
    Select(find(driver, '.row[data-key="textPath.type"] select')).select_by_value("points")
    wait_for(lambda: points() == [[72, 120], [408, 120]], "two points across the canvas (%s)" % points(), 30)
    driver.execute_script("setWhole('textPath', arguments[0])", {"type": "points", "points": [[60, 150], [240, 110], [420, 150]]})
    wait_for(lambda: points() == [[60, 150], [240, 110], [420, 150]], "the text path set on the server", 30)
    idle(driver)
    dot = wait_for(lambda: (driver.find_elements(By.CSS_SELECTOR, '.point-dot[data-key="textPath.points[1]"]') or [None])[0],
                   "a handle for the path's middle point", 30)
    before = sum(e.api("/frame.rgba")[3::4])
    ActionChains(driver).click_and_hold(dot).move_by_offset(0, 20).move_by_offset(0, 20).release().perform()
    moved = wait_for(lambda: points()[1] if points()[1][1] > 130 else None, "the dragged point to reach the server", 30)
    check(moved[0] == 240 and moved[1] > 130, "dragging the middle point down moved it: %s" % moved)
    undo(driver)
    wait_for(lambda: points()[1] == [240, 110], "undo to take the drag back in one step (%s)" % points(), 30)
    check(before > 0, "the text drawn along the path has ink (%d)" % before)


def extent(e, screenshot):
    """A transition's extent: set with its four fields (and saved), a partial one refused with
    the server's error and nothing changed, emptied (left out), and back with undo."""
    driver = e.driver
    transition = lambda: e.state()["editor"]["document"]["sequence"][0]["transition"]
    row = '.row[data-key="sequence[0].transition(flash).extent"]'
    fields = [find(driver, row + ' input[placeholder="%s"]' % name) for name in ("x", "y", "width", "height")]
    for field, value in zip(fields, ("10", "20", "100", "40")):
        retype(field, value + Keys.TAB)
    wait_for(lambda: transition().get("extent") == [10, 20, 100, 40], "the extent on the server", 30)
    idle(driver)
    # Focused, the rectangle is outlined on the preview (shown at its own size: 100 × 40 pixels).
    fields[0].click()
    outline = wait_for(lambda: driver.execute_script(
        "const b = document.querySelector('.extent-box'); return b && [b.offsetWidth, b.offsetHeight]"), "the extent's outline", 30)
    check(abs(outline[0] - 100) <= 2 and abs(outline[1] - 40) <= 2, "the outline is the rectangle on the preview: %s" % outline)
    if screenshot:
        driver.save_screenshot(screenshot)
        print("screenshot: " + screenshot)
    driver.find_element(By.TAG_NAME, "header").click()
    wait_for(lambda: not driver.find_elements(By.CSS_SELECTOR, ".extent-box"), "the outline to go with the focus", 30)
    click(driver, "#save")
    wait_for(lambda: driver.find_element(By.ID, "status").text.startswith("saved "), "the save", 30)
    check(json.load(open(e.scene))["sequence"][0]["transition"].get("extent") == [10, 20, 100, 40], "the saved scene has the extent")

    revision = e.state()["editor"]["revision"]
    retype(fields[3], Keys.DELETE + Keys.ENTER)
    box = driver.find_element(By.CSS_SELECTOR, '.error[data-error-for="sequence[0].transition.extent"]')
    wait_for(lambda: box.is_displayed() and "must be a rectangle [x, y, width, height]" in box.text, "the partial extent's error", 30)
    check(e.state()["editor"]["revision"] == revision and transition()["extent"] == [10, 20, 100, 40],
          "the partial extent changed nothing: %s" % box.text)
    for field in fields:
        retype(field, Keys.DELETE + Keys.ENTER)
    wait_for(lambda: "extent" not in transition(), "the emptied extent to be left out", 30)
    wait_for(lambda: not box.is_displayed(), "the error to go", 30)
    undo(driver)
    wait_for(lambda: transition().get("extent") == [10, 20, 100, 40], "undo to put the extent back", 30)
    wait_for(lambda: [f.get_attribute("value") for f in fields] == ["10", "20", "100", "40"], "the fields to show it", 30)
    undo(driver)
    wait_for(lambda: "extent" not in transition(), "a second undo to take back the first extent (left out, as at the start)", 30)
    wait_for(lambda: [f.get_attribute("value") for f in fields] == [""] * 4, "the fields to show none", 30)


def styled_runs(e, screenshot=None):
    """Styled runs on the page: the Styled runs box turns the title's text into runs, the text box
    then takes inline markup whose runs reach the scene (a chrome run beside the gold one, bluer on
    the preview), a material that names a file is refused with the server's message, and undo takes
    the runs and then the box back."""
    driver = e.driver
    text = lambda: e.state()["editor"]["document"].get("text")
    idle(driver)
    click(driver, 'input[name=text-runs]')
    wait_for(lambda: text() == ["Gold chrome"], "the text turned into one run (%s)" % text(), 30)
    retype(find(driver, 'textarea[name=text]'), "Gold {material=chrome: chrome}")
    runs = ["Gold ", {"text": "chrome", "material": "chrome"}]
    wait_for(lambda: text() == runs, "the markup's runs on the server (%s)" % text(), 30)
    idle(driver)
    frame = wait_for(lambda: e.api("/frame.rgba"), "a frame", 30)
    width = e.state()["editor"]["document"]["width"]

    def blue_minus_red(x0, x1):
        px = [(frame[i], frame[i + 2]) for y in range(len(frame) // (4 * width)) for x in range(x0, x1)
              for i in [(y * width + x) * 4] if frame[i + 3] > 200]
        return sum(b - r for r, b in px) / max(len(px), 1), len(px)
    left, right = blue_minus_red(0, width // 2 - 40), blue_minus_red(width // 2 + 40, width)
    check(left[1] > 200 and right[1] > 200, "ink either side: %s %s" % (left, right))
    check(right[0] > left[0] + 60, "the chrome run is bluer than the gold one: %.0f against %.0f" % (right[0], left[0]))
    check(driver.find_element(By.CSS_SELECTOR, 'textarea[name=text]').get_attribute("value") == "Gold {material=chrome: chrome}",
          "the text box shows the markup")
    if screenshot:
        driver.save_screenshot(screenshot)
    # A page names bundled materials only.
    retype(find(driver, 'textarea[name=text]'), "Gold {material=/etc/passwd: chrome}")
    error = lambda: driver.find_element(By.CSS_SELECTOR, '.error[data-error-for="text"]')
    wait_for(lambda: error().is_displayed() and "unknown material" in error().text, "the refused material's message", 30)
    # Typed a key at a time, the last markup the server took is the text before the bad run.
    check(not any(isinstance(r, dict) and "/" in r.get("material", "") for r in text()), "no run names a file: %s" % text())
    retype(find(driver, 'textarea[name=text]'), "Gold {material=chrome: chrome}")
    wait_for(lambda: not error().is_displayed(), "the message to go once the runs are taken", 30)
    undo(driver)
    wait_for(lambda: text() == ["Gold chrome"], "undo to take the runs back (%s)" % text(), 30)
    undo(driver)
    wait_for(lambda: text() == "Gold chrome", "undo to turn the runs back into plain text (%s)" % text(), 30)
    wait_for(lambda: not driver.find_element(By.CSS_SELECTOR, 'input[name=text-runs]').is_selected(), "the box unticked", 30)


def plate(e, screenshot=None):
    """A plate on the page (issue 38): its box turns it on under the ink (the preview's pixels
    around the ink change), its padding typed as [x, y] reaches the scene, its colour too,
    and undo takes each back."""
    driver = e.driver
    plate = lambda: e.state()["editor"]["document"].get("plate")
    idle(driver)
    before = frame_after(e, e.state()["editor"]["revision"])
    click(driver, '.row[data-key="plate"] input[type=checkbox]')
    wait_for(lambda: plate() is not None, "the plate on the server (%s)" % plate(), 30)
    after = frame_after(e, e.state()["editor"]["revision"])
    changed = sum(1 for i in range(0, len(after), 4) if after[i:i + 4] != before[i:i + 4])
    check(changed > 2000, "the plate changes the preview around the ink (%d pixels)" % changed)
    retype(find(driver, '.row[data-key="plate.padding"] input[type=text]'), "[40, 6]" + Keys.ENTER)
    wait_for(lambda: (plate() or {}).get("padding") == [6, 40, 6, 40], "the padding [x, y] as four sides (%s)" % plate(), 30)
    check("json" not in find(driver, '.row[data-key="plate.padding"] input[type=text]').get_attribute("class"),
          "the padding is a field of its own, not raw JSON")
    retype(find(driver, '.row[data-key="plate.color"] input[type=text]'), "#aa2200" + Keys.ENTER)
    wait_for(lambda: (plate() or {}).get("color") == "#aa2200", "the plate's colour (%s)" % plate(), 30)
    idle(driver)
    frame = frame_after(e, e.state()["editor"]["revision"])
    red = sum(1 for i in range(0, len(frame), 4) if frame[i] > 120 and frame[i + 1] < 80 and frame[i + 3] > 200)
    check(red > 1000, "the red plate on the preview (%d pixels)" % red)
    if screenshot:
        driver.save_screenshot(screenshot)
    undo(driver)
    wait_for(lambda: (plate() or {}).get("color") != "#aa2200", "undo to take the colour back", 30)
    idle(driver)
    undo(driver)
    wait_for(lambda: (plate() or {}).get("padding") != [6, 40, 6, 40], "undo to take the padding back", 30)
    idle(driver)
    undo(driver)
    wait_for(lambda: plate() is None, "undo to take the plate out (%s)" % plate(), 30)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--pid-file")
    parser.add_argument("--screenshot", help="a PNG of the page with the gradient's stops, a point light's group and in open")
    parser.add_argument("--extent-screenshot", help="a PNG of the page with a transition's extent being edited")
    parser.add_argument("--runs-screenshot", help="a PNG of the page with the title's text as styled runs")
    parser.add_argument("--plate-screenshot", help="a PNG of the page with a plate under the title")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    scene = {"text": "Hi", "size": 60, "width": 480, "height": 240,
             "backgroundGradient": {"colors": ["#202040", "#806020"], "locations": [0, 1]},
             "pointLights": [{"x": 100, "y": 120, "color": "#ff8800", "intensity": 1, "range": 150},
                             {"x": 380, "y": 120, "color": "#3388ff", "intensity": 1, "range": 150}],
             "animation": {"duration": 2, "fps": 10}}
    with Editor(binary, scene, args.pid_file) as e:
        coverage(e, binary, scene)
        stops_in_out_and_lights(e, args.screenshot)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Title", "size": 48, "width": 480, "height": 240, "layers": [{"name": "a"}]}, args.pid_file) as e:
        layers(e)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Nobody", "size": 48, "width": 480, "height": 240, "layers": [{"text": "A"}]}, args.pid_file) as e:
        unused_keys(e)
    with Editor(binary, {"text": "Drop", "size": 48, "width": 480, "height": 240, "vine": {"path": "underline"},
                         "animation": {"duration": 2, "fps": 10}, "dynamics": {"delays": [0.2, 0.4]}}, args.pid_file) as e:
        delays_and_route(e)
        check(e.running(), "the editor is still running")
    inter = {"text": "Weight", "font": "/usr/share/fonts/truetype/inter-vf/Inter.var.ttf", "size": 64, "width": 480, "height": 200,
             "animation": {"duration": 2, "fps": 10}}
    with Editor(binary, inter, args.pid_file) as e:
        type_keys(e)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Gold chrome", "material": "gold", "size": 60, "width": 480, "height": 160}, args.pid_file) as e:
        styled_runs(e, args.runs_screenshot)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Plate", "material": "gold", "size": 60, "width": 480, "height": 200}, args.pid_file) as e:
        plate(e, args.plate_screenshot)
        check(e.running(), "the editor is still running")
    sequence = {"width": 480, "height": 240, "size": 48, "animation": {"fps": 10},
                "sequence": [{"scene": {"text": "A"}, "hold": 0.5, "transition": {"type": "flash", "duration": 0.5}},
                             {"scene": {"text": "B"}, "hold": 0.5}]}
    with Editor(binary, sequence, args.pid_file) as e:
        extent(e, args.extent_screenshot)
        check(e.running(), "the editor is still running")
    print("PASS")


if __name__ == "__main__":
    main()
