#!/usr/bin/env python3
"""Headless-Chromium checks of issue 33's layers first (defect 4: in a layered scene the top of
the panel changed no pixel, yet was accepted, shown bold and saved; the layers sat at the bottom).

- `#layers` at the top of the panel lists the layers by name, one `[data-layer="N"]` each, and
  the scene's controls that no layer takes (its text, here) are marked, not silently dead.
- A click on a layer's ink in the preview selects it (the item, an outline over the preview);
  the panel then shows that layer as it is drawn (its preset, its shininess, its sphere).
- An edit then goes to `layers[N]` and changes that layer's pixels and no other's; a text that
  looks like a number stays text; a light dragged on the sphere is the layer's; ◆ keyframes
  the layer's key; undo takes the layer's edit back.
- Keys the selected layer gives to no effect (a stacked layer's anchor, a second layer's canvas
  width) are marked; in and out are the layer's own: its list of moves is shown as such,
  choosing a type gives the layer that in, leaving the scene's, and undo brings the list back.
- A click off the ink selects the scene again, whose edits go to the scene.
- The timeline has a lane for each layer's own in and out (the role's after the name's).

Usage: editor-layers-test.py MERCURIAL_BINARY [--pid-file FILE] [--screenshot FILE]
Exits 1 on a failed check; prints PASS at the end.
"""
import json
import os

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from editor_browser import Editor, arguments, check, find, idle, retype, reveal, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def frame(driver):
    """The frame the page shows, once it shows the server's newest."""
    idle(driver)
    return driver.execute_script("return Array.from(window.__framePixels())")


def changed_in(before, after, box, width):
    x, y, w, h = box
    return sum(1 for row in range(y, y + h) for col in range(x, x + w)
               if before[row * width + col] != after[row * width + col])


def click_canvas(driver, x, y):
    """Clicks the preview at canvas pixel (x, y)."""
    canvas = driver.find_element(By.ID, "preview")
    rect = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height, arguments[0].width, arguments[0].height];", canvas)
    ActionChains(driver).move_to_element_with_offset(canvas, x * rect[0] / rect[2] - rect[0] / 2,
                                                     y * rect[1] / rect[3] - rect[1] / 2).click().perform()


def layer_of(e, n):
    return e.state()["editor"]["document"]["layers"][n]


def main():
    args = arguments("with the second layer selected")
    scene = json.load(open(os.path.join(ROOT, "examples/lower-third.json")))
    scene.update(width=960, height=540, margin=40)
    scene["layers"][0]["size"], scene["layers"][1]["size"] = 64, 30
    with Editor(os.path.abspath(args.binary), scene, args.pid_file) as e:
        driver = e.driver
        idle(driver)
        items = driver.find_elements(By.CSS_SELECTOR, "#layers [data-layer]")
        names = {i.get_attribute("data-layer"): i.text for i in items}
        check(names.get("0", "").startswith("name") and names.get("1", "").startswith("role"),
              "#layers lists the layers by name: %s" % names)
        panel_top = driver.execute_script("return document.getElementById('layers').getBoundingClientRect().top")
        check(panel_top < 100, "the layer list is at the top of the panel (%d px down)" % panel_top)
        lanes = driver.execute_script("""return Array.from(document.querySelectorAll('#layer-moves [data-layer-moves]')).map(
            (lane) => [lane.dataset.layerMoves, lane.querySelector('.lane-name').textContent,
                       Array.from(lane.querySelectorAll('[data-span]')).map((s) => [s.dataset.span, s.textContent, parseFloat(s.style.left)])])""")
        check(len(lanes) == 2 and lanes[0][2][0][1] == "in: slide + fade" and lanes[1][1].startswith("role"),
              "the timeline has a lane of moves for each layer, named: %s" % lanes)
        check(lanes[1][2][0][2] > lanes[0][2][0][2] + 5, "the role's in starts after the name's: %s" % lanes)
        text_row = driver.find_element(By.CSS_SELECTOR, '#controls .row[data-key="text"]')
        check("unused" in text_row.get_attribute("class"), "on the scene, the text no layer takes is marked")
        check("no layer takes it" in driver.execute_script("return getComputedStyle(arguments[0].querySelector('label'), '::after').content", text_row),
              "and says so beside its name")

        boxes = [l["box"] for l in e.state()["editor"]["layers"]]
        check(all(b and b[2] > 0 and b[3] > 0 for b in boxes), "each layer's ink box is known: %s" % boxes)
        role = boxes[1]
        before = frame(driver)
        click_canvas(driver, role[0] + role[2] // 2, role[1] + role[3] // 2)
        wait_for(lambda: "selected" in driver.find_element(By.CSS_SELECTOR, '#layers [data-layer="1"]').get_attribute("class"),
                 "a click on the role's ink to select layer 2", 30)
        idle(driver)
        check(driver.find_elements(By.CSS_SELECTOR, "#light-dots .layer-outline"), "the selected layer is outlined on the preview")
        preset = driver.execute_script("return document.querySelector('.row[data-key=\"material\"] select').value")
        check(preset == "chrome", "the panel shows the layer's preset: %s" % preset)
        shininess = float(driver.find_element(By.CSS_SELECTOR, '.row[data-key="shininess"] input[type=text]').get_attribute("value"))
        check(abs(shininess - 0.15) < 1e-9, "and the layer's shininess as drawn (chrome's 0.15): %s" % shininess)
        check("layer=1" in driver.find_element(By.ID, "sphere").get_attribute("src"), "and the layer's sphere")
        anchor = driver.find_element(By.CSS_SELECTOR, '#controls .row[data-key="anchor"]')
        width = driver.find_element(By.CSS_SELECTOR, '#controls .row[data-key="width"]')
        check("unused" in anchor.get_attribute("class") and "unused" in width.get_attribute("class"),
              "a stacked second layer's anchor and canvas width are marked unused")
        check("scene-wide" not in driver.find_element(By.CSS_SELECTOR, '#controls .row[data-key="in.type"]').get_attribute("class"),
              "in is the layer's own, not the whole scene's")
        scene_in = e.state()["editor"]["document"].get("in")
        role_in = layer_of(e, 1).get("in")
        shown = Select(find(driver, '.row[data-key="in.type"] select')).first_selected_option.text
        check(isinstance(role_in, list) and shown.startswith("slide + fade"), "the role's own in, a list, is shown as such: %s" % shown)
        Select(find(driver, '.row[data-key="in.type"] select')).select_by_value("fade")
        wait_for(lambda: layer_of(e, 1).get("in") == {"type": "fade"}, "in = fade in layers[1]", 30)
        check(e.state()["editor"]["document"].get("in") == scene_in, "the scene's own in is untouched: %s" % scene_in)
        idle(driver)
        find(driver, "#undo").click()
        wait_for(lambda: layer_of(e, 1).get("in") == role_in, "undo to bring the layer's list of moves back", 30)
        idle(driver)
        check("unused" not in text_row.get_attribute("class"), "the layer's text is not marked")

        retype(find(driver, '.row[data-key="radius"] input[type=text]'), "14" + Keys.ENTER)
        wait_for(lambda: layer_of(e, 1).get("radius") == 14, "radius 14 in layers[1]", 30)
        check(e.state()["editor"]["document"]["radius"] == 6, "the scene's radius is untouched")
        after = frame(driver)
        w = e.state()["editor"]["layers"] and 960
        check(changed_in(before, after, role, w) > 100, "the role's pixels changed (%d)" % changed_in(before, after, role, w))
        check(changed_in(before, after, boxes[0], w) == 0, "the name's did not")

        area = find(driver, '.row[data-key="text"] textarea')
        retype(area, "2024")
        wait_for(lambda: layer_of(e, 1).get("text") == "2024", "the layer's text, as text", 30)

        field = find(driver, '.row[data-key="light1.x"] input[type=text]')
        light_before = field.get_attribute("value")
        retype(field, "13" + Keys.ENTER)
        wait_for(lambda: layer_of(e, 1).get("light1.x") == 13, "light 1's x in layers[1]", 30)
        check("light1.x" not in e.state()["editor"]["document"], "not in the scene")

        find(driver, '.row[data-key="scale"] button.key').click()
        wait_for(lambda: "layers[1].scale" in ((e.state()["editor"]["document"].get("animation") or {}).get("tracks") or {}),
                 "the ◆ to keyframe the layer's scale", 30)

        idle(driver)
        find(driver, "#undo").click()   # the ◆
        find(driver, "#undo").click()   # the light
        wait_for(lambda: "light1.x" not in layer_of(e, 1), "undo to take the layer's light key out again", 30)
        idle(driver)
        shown = driver.find_element(By.CSS_SELECTOR, '.row[data-key="light1.x"] input[type=text]').get_attribute("value")
        check(shown == light_before, "and the field shows the value the layer had again: %s (was %s)" % (shown, light_before))

        if args.screenshot:
            driver.save_screenshot(args.screenshot)

        click_canvas(driver, 4, 4)
        wait_for(lambda: "selected" in driver.find_element(By.CSS_SELECTOR, '#layers [data-layer="scene"]').get_attribute("class"),
                 "a click off the ink to select the scene", 30)
        idle(driver)
        check(not driver.find_elements(By.CSS_SELECTOR, "#light-dots .layer-outline"), "no outline on the scene")
        retype(find(driver, '.row[data-key="radius"] input[type=text]'), "9" + Keys.ENTER)
        wait_for(lambda: e.state()["editor"]["document"]["radius"] == 9, "the scene's radius set on the scene", 30)
        check(layer_of(e, 1).get("radius") == 14, "the layer's own radius kept")
        check(e.running(), "the editor is still running")
    print("PASS")


if __name__ == "__main__":
    main()
