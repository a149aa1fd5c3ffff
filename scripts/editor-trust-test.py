#!/usr/bin/env python3
"""Headless-Chromium checks of issue 33 (the editor a designer trusts), one per defect fixed.

1. On a canvas sized to the title, turning on a drop shadow grows the page's frame to what
   `mercurial render` gives for the saved scene, pixel for pixel (the page kept the old size,
   the shadow cut off at the bottom and right).
2. A change on disk under unsaved edits keeps both: #conflict offers the file's (Reload) or
   the page's (Overwrite), and Overwrite saves the page's edit (the file was read over it).
3. Unsaved edits show a mark in the header and a dot in the tab's title, leaving warns
   (beforeunload), and undo outlives a reload of the page.
6. One visible mode: the page opens on the base scene and the bar says so (it read
   "0.00 s · frame 0"); Edit base says so again (the bar kept a stale time).
9. Space plays and pauses without the Play button having focus; ← → step a frame, Home
   and End go to the first and last.
12. A hue track turns as its values say (0 → 0.999 goes almost once round; it went the
   short way, 0.001), and its field shows at most 6 significant digits.
5. A new scene (no file yet) given a fade-in gets an animation, 3 s at 30 frames a second,
   and its timeline shows at once, with no error; a refused value's message names no file
   and no line. A ◆ on a still scene keyframes it the same way.

Usage: editor-trust-test.py MERCURIAL_BINARY [--pid-file FILE] [--screenshot FILE]
Exits 1 on a failed check; prints PASS at the end.
"""
import json
import os
import re
import subprocess

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from editor_browser import Editor, arguments, check, find, idle, png_rgba, retype, reveal, wait_for


def shown_revision(driver):
    return driver.execute_script("return window.__pending() === 0 && window.__shown ? window.__shown.revision : -1")


def shown_errors(driver):
    return [x.text for x in driver.find_elements(By.CSS_SELECTOR, ".error") if x.is_displayed() and x.text.strip()]


def shadow_grows_the_frame(e, binary):
    driver = e.driver
    size = lambda: driver.execute_script("const c = document.getElementById('preview'); return [c.width, c.height];")
    before = size()
    find(driver, '.row[data-key="dropShadow"] input[type=checkbox]').click()
    wait_for(lambda: e.state()["editor"]["blocks"].get("dropShadow") is not None, "a drop shadow on the server", 30)
    revision = e.state()["editor"]["revision"]
    wait_for(lambda: shown_revision(driver) >= revision, "the page to show the shadow's frame", 60)
    find(driver, "#save").click()
    wait_for(lambda: driver.find_element(By.ID, "status").text.startswith("saved "), "the save", 30)
    out = os.path.join(e.work, "render.png")
    subprocess.run([binary, "render", "--params", e.scene, "-o", out, "-q"], check=True, timeout=120)
    rendered = open(out, "rb").read()
    os.remove(out)
    width, height = int.from_bytes(rendered[16:20], "big"), int.from_bytes(rendered[20:24], "big")
    page = size()
    check(page == [width, height], "the page's frame is the render's size with the shadow: %s, render %dx%d (before: %s)"
          % (page, width, height, before))
    served = e.api("/frame.rgba")
    check(served == png_rgba(rendered), "the frame's pixels are the render's")


def new_scene_fades_in(e, screenshot):
    driver = e.driver
    bar = driver.find_element(By.ID, "timeline-bar")
    check(not bar.is_displayed(), "a still scene shows no timeline")
    Select(find(driver, '.row[data-key="in.type"] select')).select_by_value("fade")
    wait_for(lambda: (e.state()["editor"]["document"].get("in") or {}).get("type") == "fade", "in = fade on the server", 30)
    animation = e.state()["editor"]["document"].get("animation")
    check(animation == {"duration": 3, "fps": 30}, "the fade-in gave the scene an animation of 3 s at 30 frames/s: %s" % animation)
    wait_for(lambda: bar.is_displayed(), "the timeline to show", 30)
    idle(driver)
    check(not shown_errors(driver), "no error on the page: %s" % shown_errors(driver))
    if screenshot:
        driver.save_screenshot(screenshot)
    # A refused value (a fade longer than the animation): its message names no file and no line.
    duration = find(driver, '.row[data-key="in(fade).duration"] input[type=text]')
    retype(duration, "9" + Keys.ENTER)
    errors = wait_for(lambda: shown_errors(driver), "the refused duration's message", 30)
    check(all(".json" not in m and "/" not in m and not re.search(r"\d+:\d+", m) for m in errors),
          "the refusal names no file and no place in one: %s" % errors)


def edits_are_never_lost(e):
    driver = e.driver
    marker = driver.find_element(By.ID, "unsaved")
    check(not marker.is_displayed() and not driver.title.startswith("●"), "no unsaved mark on opening: %r" % driver.title)
    scale = lambda: float(e.values()["scale"])
    before = scale()
    field = find(driver, '.row[data-key="scale"] input[type=text]')
    retype(field, "20" + Keys.ENTER)
    wait_for(lambda: scale() == 20, "scale 20 on the server", 30)
    wait_for(lambda: marker.is_displayed() and driver.title.startswith("●"), "the unsaved mark and the title's dot", 30)
    prevented = driver.execute_script("const e = new Event('beforeunload', {cancelable: true});"
                                      "window.dispatchEvent(e); return e.defaultPrevented;")
    check(prevented, "leaving the page with unsaved edits is warned")
    # Someone else's edit of the file, under the page's.
    disk = dict(json.load(open(e.scene)), radius=3)
    with open(e.scene + ".tmp", "w") as f:
        json.dump(disk, f)
    os.replace(e.scene + ".tmp", e.scene)
    conflict = driver.find_element(By.ID, "conflict")
    wait_for(conflict.is_displayed, "the page to offer both ways out (#conflict)", 30)
    check(scale() == 20, "the page's edit is kept")
    check(json.load(open(e.scene)) == disk, "the file's edit is kept")
    check("changed on disk" in driver.find_element(By.ID, "status").text, "the page says why")
    find(driver, "#overwrite").click()
    wait_for(lambda: driver.find_element(By.ID, "status").text.startswith("saved "), "Overwrite to save", 30)
    check(json.load(open(e.scene)).get("scale") == 20, "Overwrite saved the page's edit")
    wait_for(lambda: not marker.is_displayed() and not conflict.is_displayed(), "the mark and #conflict to go", 30)
    # Undo outlives a reload of the page.
    driver.refresh()
    wait_for(lambda: driver.execute_script("return window.__shown !== null"), "the first frame after the reload", 60)
    idle(driver)
    driver.find_element(By.TAG_NAME, "header").click()
    ActionChains(driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
    wait_for(lambda: scale() == before, "Ctrl+Z after the reload to put scale back to %g" % before, 30)
    wait_for(lambda: driver.find_element(By.ID, "unsaved").is_displayed(), "the unsaved mark after the undo", 30)


def one_mode_and_the_timelines_keys(e):
    driver = e.driver
    time_text = lambda: driver.find_element(By.ID, "time").text
    playhead = lambda: e.state()["editor"]["timeline"]["playhead"]
    frames = e.state()["editor"]["timeline"]["frames"]
    wait_for(lambda: "base scene" in time_text(), "the bar to say the page opens on the base scene", 30)
    check(not re.search(r"frame \d", time_text()) and playhead() is None, "no frame is claimed on the base scene: %r" % time_text())
    keys = lambda key: ActionChains(driver).send_keys(key).perform()
    idle(driver)
    driver.find_element(By.TAG_NAME, "header").click()   # out of every control, as a user clicking the page
    keys(Keys.SPACE)
    wait_for(lambda: driver.find_element(By.ID, "play").text == "Pause", "Space to play", 10)
    keys(Keys.SPACE)
    wait_for(lambda: driver.find_element(By.ID, "play").text == "Play", "Space again to pause", 30)
    for key, frame in ((Keys.HOME, 0), (Keys.ARROW_RIGHT, 1), (Keys.END, frames - 1), (Keys.ARROW_LEFT, frames - 2)):
        idle(driver)
        keys(key)
        wait_for(lambda: time_text().endswith("frame %d" % frame) and playhead() == frame,
                 "the key to put the playhead on frame %d (%r, server %s)" % (frame, time_text(), playhead()), 30)
    find(driver, "#edit-base").click()
    wait_for(lambda: "base scene" in time_text() and playhead() is None, "Edit base to say so in the bar (%r)" % time_text(), 30)


def hue_tracks_turn(e):
    driver = e.driver
    idle(driver)
    driver.execute_script("scrub(11).then(refresh)")   # 11/30 s into a 2 s track from 0 to 0.999
    wait_for(lambda: e.state()["editor"]["timeline"]["playhead"] == 11, "the playhead on frame 11", 30)
    hue = float(e.values()["light1.hue"])
    check(abs(hue - 0.999 * 11 / 60) < 1e-6, "the hue at frame 11 is 11/60 of the way round: %s (the short way went back from 1 to 0.999)" % hue)
    field = lambda: driver.find_element(By.CSS_SELECTOR, '.row[data-key="light1.hue"] input[type=text]').get_attribute("value")
    wait_for(lambda: abs(float(field() or "nan") - hue) < 1e-5, "the hue's field to show %s (%r)" % (hue, field()), 30)
    check(len(field().replace("0.", "", 1)) <= 6, "the field shows at most 6 significant digits: %r" % field())


def keyframe_on_a_still_scene(e):
    driver = e.driver
    bar = driver.find_element(By.ID, "timeline-bar")
    check(not bar.is_displayed(), "a still scene shows no timeline")
    find(driver, '.row[data-key="radius"] button.key').click()
    wait_for(lambda: "radius" in ((e.state()["editor"]["document"].get("animation") or {}).get("tracks") or {}),
             "the ◆ to keyframe radius on the server", 30)
    check(e.state()["editor"]["document"]["animation"]["duration"] == 3, "the ◆ gave the scene a 3 s animation")
    wait_for(lambda: bar.is_displayed(), "the timeline to show", 30)
    check(not shown_errors(driver), "no error on the page: %s" % shown_errors(driver))


def two_tabs_keep_each_others_text(e):
    """10. Tab A's focused text box takes tab B's typing; A's next keystroke adds to B's text (it sent A's stale text)."""
    a, b = e.driver, e.open_page()
    text = lambda: e.values()["text"]
    box_a = find(a, '.row[data-key="text"] textarea')
    box_a.click()
    retype(find(b, '.row[data-key="text"] textarea'), "From B")
    wait_for(lambda: text() == "From B", "tab B's text on the server", 30)
    wait_for(lambda: box_a.get_attribute("value") == "From B", "tab A's focused box to show tab B's text", 30)
    check(a.execute_script("return document.activeElement") == box_a, "tab A's box kept the focus")
    box_a.send_keys(Keys.END, "!")
    wait_for(lambda: text() == "From B!", "tab A's keystroke added to tab B's text (not 'Mine!')", 30)
    idle(a)
    # A number field typed in but not yet entered keeps the user's text over another tab's edit.
    scale_a = find(a, '.row[data-key="scale"] input[type=text]')
    scale_a.click()
    scale_a.send_keys(Keys.CONTROL, "a")
    scale_a.send_keys("12")
    retype(find(b, '.row[data-key="radius"] input[type=text]'), "7" + Keys.ENTER)
    wait_for(lambda: float(e.values()["radius"]) == 7, "tab B's radius", 30)
    wait_for(lambda: a.find_element(By.CSS_SELECTOR, '.row[data-key="radius"] input[type=text]').get_attribute("value") == "7",
             "tab A to show tab B's radius", 30)
    check(scale_a.get_attribute("value") == "12", "tab A's typing in scale is kept until it is entered")


def errors_go_and_colours_show(e):
    """11. A refused value's message goes with a valid entry; one message at a time, the refused
    field going back to the scene's value; a typed colour shows in its swatch; a title that cannot
    be drawn (its text emptied) marks the preview as not up to date."""
    driver = e.driver
    row = lambda key: driver.find_element(By.CSS_SELECTOR, '.row[data-key="%s"]' % key)
    error = lambda key: row(key).find_element(By.CSS_SELECTOR, ".error")
    radius = find(driver, '.row[data-key="radius"] input[type=text]')
    retype(radius, "abc" + Keys.ENTER)
    wait_for(lambda: error("radius").is_displayed(), "radius = abc refused", 30)
    retype(radius, "5" + Keys.ENTER)
    wait_for(lambda: float(e.values()["radius"]) == 5, "radius 5 taken", 30)
    idle(driver)
    check(not error("radius").is_displayed() and "invalid" not in radius.get_attribute("class"), "the refusal's message went")
    retype(radius, "-3" + Keys.ENTER)
    wait_for(lambda: error("radius").is_displayed(), "radius = -3 refused", 30)
    retype(find(driver, '.row[data-key="scale"] input[type=text]'), "-999" + Keys.ENTER)
    wait_for(lambda: error("scale").is_displayed(), "scale = -999 refused", 30)
    idle(driver)
    check(shown_errors(driver) == [error("scale").text], "one message at a time: %s" % shown_errors(driver))
    check(radius.get_attribute("value") == "5", "the radius field shows the scene's radius again: %s" % radius.get_attribute("value"))
    for typed, hex in (("#f80", "#ff8800"), ("gold", "#ffd700")):
        retype(find(driver, '.row[data-key="diffuse"] input[type=text]'), typed + Keys.ENTER)
        picker = row("diffuse").find_element(By.CSS_SELECTOR, "input[type=color]")
        wait_for(lambda: picker.get_attribute("value") == hex, "the swatch of %s to be %s (%s)" % (typed, hex, picker.get_attribute("value")), 30)
        check("none" not in row("diffuse").find_element(By.CSS_SELECTOR, ".swatch").get_attribute("class"), "and shown")
    area = find(driver, '.row[data-key="text"] textarea')
    area.click()
    area.send_keys(Keys.CONTROL, "a")
    area.send_keys(Keys.DELETE)
    stale = driver.find_element(By.ID, "stale")
    wait_for(stale.is_displayed, "the preview marked as not up to date", 30)
    check("stale" in driver.find_element(By.ID, "stage").get_attribute("class"), "and dimmed")
    area.send_keys("Back")
    wait_for(lambda: not stale.is_displayed(), "the mark to go with a title that draws", 30)


def the_smaller_things(e):
    """13. A sphere dot stays on the sphere; the canvas's edge shows and the EBU R 95 safe areas
    can be drawn; Fit enlarges a small canvas and + / − zoom; groups have human names; dynamics
    off is a box, not a block of empty fields, and turned on it shows its defaults; a fallback
    font's SHA-256 is not a field to type in."""
    driver = e.driver
    idle(driver)
    dot = driver.find_element(By.CSS_SELECTOR, '#sphere-box .dot[data-light="1"]')
    box = driver.find_element(By.ID, "sphere-box")
    ActionChains(driver).click_and_hold(dot).move_to_element_with_offset(box, 160, -100).release().perform()
    wait_for(lambda: not driver.execute_script("return window.__busy()") and e.values()["light1.x"] != "0", "the dragged light", 30)
    x, y = float(e.values()["light1.x"]), float(e.values()["light1.y"])
    check(x > 0 and y > 0 and x * x + y * y <= 50 ** 2 and x * x + y * y > 49.5 ** 2, "a dot dragged off the sphere stays on its rim: (%g, %g)" % (x, y))
    outline = driver.execute_script("return getComputedStyle(document.getElementById('preview')).outlineStyle")
    check(outline == "solid", "the canvas's edge is drawn: %s" % outline)
    guides = driver.find_element(By.ID, "guides")
    check(not guides.is_displayed(), "no safe areas until asked")
    driver.find_element(By.ID, "safe-guides").click()
    check(guides.is_displayed(), "Safe areas draws them")
    canvas = driver.find_element(By.ID, "preview")
    title = driver.find_element(By.CSS_SELECTOR, "#guides .title-safe")
    inset = (title.rect["x"] - canvas.rect["x"]) / canvas.rect["width"]
    check(abs(inset - 0.05) < 0.005, "title-safe is 5 %% in from the edge: %.4f" % inset)
    before = canvas.rect["width"]
    driver.find_element(By.ID, "zoom-fit").click()
    fitted = canvas.rect["width"]
    check(fitted > before * 1.5, "Fit enlarges a small canvas: %d px → %d px" % (before, fitted))
    driver.find_element(By.ID, "zoom-out").click()
    check(canvas.rect["width"] < fitted, "− zooms out")
    driver.find_element(By.ID, "zoom-100").click()
    check(canvas.rect["width"] == 480, "100 %% is pixel for pixel: %s" % canvas.rect["width"])
    names = driver.execute_script("return [...document.querySelectorAll('#controls details.group > summary')].map((s) => s.textContent)")
    check("Drop shadow" in names and "Background gradient" in names and not any(n in names for n in ("dropShadow", "backgroundGradient")),
          "groups have human names: %s" % names)
    switch = find(driver, '.row[data-key="dynamics"] input[type=checkbox]')
    rows = driver.find_elements(By.CSS_SELECTOR, 'details.group[data-group="dynamics"] > .row:not([data-key="dynamics"])')
    check(rows and not any(r.is_displayed() for r in rows), "dynamics off: no empty fields, a box")
    switch.click()
    wait_for(lambda: e.state()["editor"]["document"].get("dynamics") is not None, "dynamics on", 30)
    idle(driver)
    elasticity = find(driver, '.row[data-key="dynamics.elasticity"] input[type=text]')
    check(elasticity.is_displayed() and elasticity.get_attribute("value") == "0.4", "on, it shows its defaults")
    balls = driver.find_elements(By.CSS_SELECTOR, '.row[data-key="material"] .preset img')
    wait_for(lambda: all(driver.execute_script("return arguments[0].naturalWidth", b) == 64 for b in balls),
             "each preset's sphere (64 px) beside the menu", 30)
    check(len(balls) == len(e.state()["editor"]["materials"]), "a sphere for each of the %d presets" % len(balls))
    find(driver, '.row[data-key="material"] .preset[data-preset="gold"]').click()
    wait_for(lambda: e.state()["editor"]["material"] == "gold", "a click on gold's sphere to choose gold", 30)
    idle(driver)
    check("selected" in driver.find_element(By.CSS_SELECTOR, '.preset[data-preset="gold"]').get_attribute("class"), "and marks it")
    search = find(driver, '.row[data-key="font"] input[type=search]')
    search.send_keys("mono")
    shown = [i for i in driver.find_elements(By.CSS_SELECTOR, ".font-item") if i.is_displayed()]
    check(shown and all("mono" in i.get_attribute("data-font").lower() for i in shown),
          "the font search keeps the fonts it names: %s" % [i.get_attribute("data-font") for i in shown][:5])
    first = shown[0].find_element(By.TAG_NAME, "img")
    wait_for(lambda: driver.execute_script("return arguments[0].naturalWidth", first) > 20, "the first font's sample, drawn in it", 30)
    search.send_keys(Keys.ENTER)
    wait_for(lambda: e.values()["font"] == shown[0].get_attribute("data-font"), "Enter to choose the first font found", 30)
    fonts = find(driver, '.list.readonly[data-key="fallbackFonts"]')
    check(not driver.find_elements(By.CSS_SELECTOR, '[data-key^="fallbackFonts"] input, [data-key^="fallbackFonts"] button.key'),
          "the fallback fonts (set in the file) show no empty fields, no SHA-256 to type, no ◆")
    check("set in the scene file" in fonts.text, "they say where they are set: %r" % fonts.text)


def main():
    args = arguments("after a new scene's fade-in")
    binary = os.path.abspath(args.binary)
    with Editor(binary, {"text": "Hello", "size": 60}, args.pid_file, keep=()) as e:
        shadow_grows_the_frame(e, binary)
        check(e.running(), "the editor is still running")
    with Editor(binary, None, args.pid_file) as e:
        new_scene_fades_in(e, args.screenshot)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Mine", "size": 60, "width": 480, "height": 200}, args.pid_file) as e:
        edits_are_never_lost(e)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Keys", "size": 40, "width": 320, "height": 120, "animation": {"duration": 1, "fps": 10}},
                args.pid_file) as e:
        one_mode_and_the_timelines_keys(e)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Hue", "size": 40, "width": 320, "height": 120, "animation": {"duration": 2, "fps": 30,
                "tracks": {"light1.hue": [{"t": 0, "value": 0}, {"t": 2, "value": 0.999}]}}}, args.pid_file) as e:
        hue_tracks_turn(e)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Still", "size": 60, "width": 480, "height": 200}, args.pid_file) as e:
        keyframe_on_a_still_scene(e)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Mine", "size": 60, "width": 480, "height": 200}, args.pid_file) as e:
        two_tabs_keep_each_others_text(e)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Errors", "size": 60, "width": 480, "height": 200}, args.pid_file) as e:
        errors_go_and_colours_show(e)
        check(e.running(), "the editor is still running")
    with Editor(binary, {"text": "Small", "size": 40, "width": 480, "height": 200}, args.pid_file) as e:
        the_smaller_things(e)
        check(e.running(), "the editor is still running")
    print("PASS")


if __name__ == "__main__":
    main()
