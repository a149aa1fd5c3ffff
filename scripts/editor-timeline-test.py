#!/usr/bin/env python3
"""Headless-Chromium checks of issue 33's items 7 and 8: a timeline that can be read, and
point-light handles that follow the frame on screen.

7. At 1920×1080, on a 3 s animation at 30 frames/s with a hue track keyed at 0, 2 and 3 s
   and a fade in and out of 0.5 s each:
   - a ruler above the tracks labels the seconds (0 s … 3 s, each at its share of the
     width) and ticks the frames;
   - each track is a row of its own, `[data-track="light1.hue"]`, named by its key and
     holding its three ◆;
   - the playhead and the markers are on one scale: on frame 0 and on frame 60 the line
     of the playhead and the centre of the range input's thumb are within 1 px of the ◆ at
     0 s and 2 s (they were 9 px apart at frame 60);
   - in and out are labelled bars, in from 0 for 0.5 s, out 0.5 s ending on the last frame;
   - starting a video export (its progress bar shown) moves no marker, nor the playhead;
   - no row of the animation's own keys (`animation.duration`, `fps`, `quality`, …) has a
     ◆ (clicking it was an error), while a scene key's row has one.
8. On a scene whose point light 1 is tracked from x = 100 to x = 500 over 2 s: its handle
   is at the base value on the base scene, at the frame's x when the playhead is dragged to
   the middle (x = 300), at each frame's x while playing, at the last frame's after pausing, and back
   at the base value on Edit base. A light at x = -300 gets a handle inside the canvas,
   marked `offcanvas`, with a title saying where the light is.

Usage: editor-timeline-test.py MERCURIAL_BINARY [--pid-file FILE] [--screenshot FILE]
Exits 1 on a failed check; prints PASS at the end.
"""
import argparse
import os
import time

from selenium.webdriver.common.by import By

from editor_browser import Editor, check, wait_for

FRAMES_SCENE = {
    "text": "Timeline", "size": 60, "width": 640, "height": 240,
    "in": {"type": "fade", "duration": 0.5}, "out": {"type": "fade", "duration": 0.5},
    "animation": {"duration": 3, "fps": 30, "tracks": {
        "light1.hue": [{"t": 0, "value": 0}, {"t": 2, "value": 0.5}, {"t": 3, "value": 0.9}]}},
}

LIGHTS_SCENE = {
    "text": "Lights", "size": 60, "width": 640, "height": 240,
    "pointLights": [{"x": 100, "y": 120, "color": "#ff8040", "intensity": 1, "range": 200},
                    {"x": -300, "y": 60, "color": "#40a0ff", "intensity": 1, "range": 200}],
    "animation": {"duration": 2, "fps": 30, "tracks": {
        "pointLights[0].x": [{"t": 0, "value": 100}, {"t": 2, "value": 500}]}},
}

# Centres (x) of the playhead's line, its thumb and every marker, and the lanes' box, in CSS pixels.
GEOMETRY = """
    const centre = (e) => { if (!e) return null; const r = e.getBoundingClientRect(); return r.left + r.width / 2; };
    const bar = document.getElementById('timeline'), box = bar.getBoundingClientRect();
    const thumb = parseFloat(getComputedStyle(bar).getPropertyValue('--thumb'));
    const max = Number(bar.max), value = Number(bar.value);
    const lanes = document.getElementById('keyframes').getBoundingClientRect();
    return {
      line: centre(document.getElementById('playhead')),
      thumb: box.left + thumb / 2 + (max ? value / max : 0) * (box.width - thumb),
      markers: [...document.querySelectorAll('#keyframes .marker')].map((m) => [m.dataset.key, Number(m.dataset.t), centre(m)]),
      lanes: [lanes.left, lanes.width],
    };
"""


def idle(driver):
    wait_for(lambda: not driver.execute_script("return window.__busy()"), "the page to finish its changes", 60)


def scrub_to(e, frame, refresh=True):
    """The playhead to FRAME, and the page's state read again (REFRESH), as when the playhead is
    let go; or not, as while it is dragged."""
    driver = e.driver
    idle(driver)
    driver.execute_script("scrub(arguments[0]).then(arguments[1] ? refresh : () => {})", frame, refresh)
    wait_for(lambda: e.state()["editor"]["timeline"]["playhead"] == frame, "the playhead on frame %d" % frame, 30)
    wait_for(lambda: driver.execute_script("return window.__pending() === 0 && window.__shown.frame") == frame,
             "frame %d on screen" % frame, 60)
    idle(driver)


def the_ruler(e):
    driver = e.driver
    wait_for(lambda: driver.find_element(By.ID, "timeline-bar").is_displayed(), "the timeline", 30)
    idle(driver)
    ruler = driver.find_elements(By.ID, "ruler")
    check(ruler and ruler[0].is_displayed(), "a ruler is shown")
    labels = driver.execute_script("""
        return [...document.querySelectorAll('#ruler .second-label')].map((l) => [l.textContent, parseFloat(l.style.left) / 100]);""")
    texts = [t for t, _ in labels]
    check(all(s in texts for s in ("0 s", "1 s", "2 s", "3 s")), "the ruler labels the seconds: %s" % texts)
    check(all(abs(share - float(t.split()[0]) / 3) < 1e-6 for t, share in labels),
          "each second's label is at its share of the 3 s: %s" % labels)
    ticks = len(driver.find_elements(By.CSS_SELECTOR, "#ruler .tick"))
    check(ticks >= 90, "the ruler ticks the frames at 1920 px wide (%d ticks for 90 frames)" % ticks)
    name = driver.find_element(By.ID, "ruler-name").text
    check("frame" in name, "the ruler says what a tick is: %r" % name)


def a_row_a_track(e):
    driver = e.driver
    rows = driver.find_elements(By.CSS_SELECTOR, '#keyframes [data-track="light1.hue"]')
    check(len(rows) == 1, "the hue track has a row of its own (%d)" % len(rows))
    check("light1.hue" in rows[0].text, "the row names its key: %r" % rows[0].text)
    held = [m.get_attribute("data-t") for m in rows[0].find_elements(By.CSS_SELECTOR, ".marker")]
    check(sorted(float(t) for t in held) == [0, 2, 3], "the row holds the track's ◆ at 0, 2 and 3 s: %s" % held)


def one_scale(e):
    driver = e.driver
    for frame, t in ((60, 2), (0, 0)):
        scrub_to(e, frame)
        g = driver.execute_script(GEOMETRY)
        marker = [x for key, at, x in g["markers"] if key == "light1.hue" and at == t][0]
        check(g["line"] is not None and abs(g["line"] - marker) <= 1, "on frame %d the playhead's line is within 1 px of the ◆ at %g s: %.2f vs %.2f"
              % (frame, t, g["line"] or -1, marker))
        check(abs(g["thumb"] - marker) <= 1, "on frame %d the playhead's thumb is within 1 px of the ◆ at %g s: %.2f vs %.2f"
              % (frame, t, g["thumb"], marker))


def in_and_out_bars(e):
    driver = e.driver
    bars = driver.execute_script("""
        const lanes = document.getElementById('ruler-marks').getBoundingClientRect();
        const out = {};
        for (const s of document.querySelectorAll('#in-out [data-span]')) {
          const r = s.getBoundingClientRect();
          out[s.dataset.span] = [(r.left - lanes.left) / lanes.width, r.width / lanes.width, s.textContent];
        }
        return out;""")
    check(set(bars) == {"in", "out"} and all(b[1] > 0 for b in bars.values()), "in and out are bars on the timeline: %s" % bars)
    left, width, text = bars["in"]
    check(abs(left) < 1e-3 and abs(width - 0.5 / 3) < 2e-3 and "in" in text,
          "the in bar runs from 0 for 0.5 s of the 3 s: at %.4f, %.4f wide, %r" % (left, width, text))
    left, width, text = bars["out"]
    check(abs(left + width - 89 / 90) < 2e-3 and abs(width - 0.5 / 3) < 2e-3 and "out" in text,
          "the out bar is 0.5 s ending on the last frame (89/90 of the width): at %.4f, %.4f wide, %r" % (left, width, text))


def export_moves_nothing(e):
    driver = e.driver
    scrub_to(e, 60)
    before = driver.execute_script(GEOMETRY)
    driver.find_element(By.ID, "export-video").click()
    progress = driver.find_element(By.ID, "export-progress")
    wait_for(lambda: progress.is_displayed(), "the export's progress bar", 30)
    during = driver.execute_script(GEOMETRY)
    driver.find_element(By.ID, "export-cancel").click()
    wait_for(lambda: driver.execute_script("return window.__export && window.__export.state") in ("cancelled", "done"), "the cancel", 60)
    check(during["lanes"] == before["lanes"], "the export's progress leaves the lanes as they were: %s, before %s"
          % (during["lanes"], before["lanes"]))
    check(during["markers"] == before["markers"] and during["line"] == before["line"],
          "no marker moves when an export starts: %s, before %s" % (during["markers"], before["markers"]))


def no_key_on_the_animations_rows(e):
    driver = e.driver
    rows = driver.find_elements(By.CSS_SELECTOR, '#controls .row[data-key^="animation."]')
    names = [r.get_attribute("data-key") for r in rows]
    check(any(n in names for n in ("animation.duration", "animation.fps")), "the animation's rows are there: %s" % names)
    keyed = [r.get_attribute("data-key") for r in rows if r.find_elements(By.CSS_SELECTOR, ".key")]
    check(not keyed, "no ◆ on the animation's own rows: %s" % keyed)
    check(driver.find_elements(By.CSS_SELECTOR, '#controls .row[data-key="shininess"] .key'), "a scene key's row has its ◆")


# A handle's centre in canvas pixels, whether it is marked off the canvas, its title, inside the canvas's box,
# and the frame on screen (both read at once: the page moves the handles as it draws a frame).
HANDLE = """
    const dot = document.querySelector(`.point-dot[data-key="${arguments[0]}"]`), canvas = document.getElementById('preview');
    const r = dot.getBoundingClientRect(), c = canvas.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    return { x: (x - c.left) * canvas.width / c.width, y: (y - c.top) * canvas.height / c.height,
             offcanvas: dot.classList.contains('offcanvas'), title: dot.title,
             inside: x >= c.left && x <= c.right && y >= c.top && y <= c.bottom,
             frame: window.__shown ? window.__shown.frame : null };
"""


def light_x(frame):
    return 100 + 400 * (frame / 30) / 2


def handles_follow_the_frames(e):
    driver = e.driver
    handle = lambda: driver.execute_script(HANDLE, "pointLights[0]")
    idle(driver)
    h = handle()
    check(h["frame"] is None and abs(h["x"] - 100) <= 1.5, "on the base scene the light's handle is at its base x = 100: %.1f" % h["x"])
    scrub_to(e, 30, refresh=False)
    h = wait_for(lambda: (lambda h: h if abs(h["x"] - 300) <= 1.5 else None)(handle()), "the handle at the frame's x = 300 (%s)" % handle(), 10)
    check(abs(h["y"] - 120) <= 1.5, "scrubbed to the middle, the tracked light's handle is at (300, 120): (%.1f, %.1f)" % (h["x"], h["y"]))
    # Playing: every handle read with its frame stands at that frame's x.
    driver.find_element(By.ID, "play").click()
    samples, deadline = [], time.monotonic() + 4
    while time.monotonic() < deadline and len({s["frame"] for s in samples}) < 5:
        samples.append(handle())
        time.sleep(0.1)
    driver.find_element(By.ID, "play").click()
    wait_for(lambda: driver.find_element(By.ID, "play").text == "Play", "the pause", 30)
    frames = sorted({s["frame"] for s in samples if s["frame"] is not None})
    check(len(frames) >= 3, "playing showed several frames: %s" % frames)
    wrong = [(s["frame"], round(s["x"], 1)) for s in samples if s["frame"] is not None and abs(s["x"] - light_x(s["frame"])) > 1.5]
    check(not wrong, "while playing, the handle is at each frame's x (frame, x): %s" % wrong)
    idle(driver)
    wait_for(lambda: driver.execute_script("return window.__pending()") == 0, "the last frame of the play", 30)
    h = handle()
    check(h["frame"] is not None and abs(h["x"] - light_x(h["frame"])) <= 1.5,
          "paused on frame %s, the handle is at its x = %.1f: %.1f" % (h["frame"], light_x(h["frame"] or 0), h["x"]))
    idle(driver)
    driver.find_element(By.ID, "edit-base").click()
    wait_for(lambda: driver.execute_script("return window.__pending() === 0 && window.__shown.frame === null"), "the base scene", 60)
    wait_for(lambda: abs(handle()["x"] - 100) <= 1.5, "Edit base to put the handle back at x = 100 (%s)" % handle(), 10)


def a_light_off_the_canvas(e):
    driver = e.driver
    h = driver.execute_script(HANDLE, "pointLights[1]")
    check(h["offcanvas"], "the light at x = -300 has a handle marked offcanvas")
    check(h["inside"], "its handle is inside the canvas's box: (%.1f, %.1f)" % (h["x"], h["y"]))
    check("-300" in h["title"] and "off the canvas" in h["title"], "its title says where it is: %r" % h["title"])
    check(not driver.execute_script(HANDLE, "pointLights[0]")["offcanvas"], "a light on the canvas is not marked offcanvas")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--pid-file")
    parser.add_argument("--screenshot", help="a PNG of the page with the timeline, on frame 60")
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    with Editor(binary, FRAMES_SCENE, args.pid_file, keep=("scene.webm",), window="1920,1080") as e:
        the_ruler(e)
        a_row_a_track(e)
        one_scale(e)
        in_and_out_bars(e)
        export_moves_nothing(e)
        no_key_on_the_animations_rows(e)
        if args.screenshot:
            scrub_to(e, 60)
            e.driver.save_screenshot(args.screenshot)
            print("screenshot: " + args.screenshot)
        check(e.running(), "the editor is still running")
    with Editor(binary, LIGHTS_SCENE, args.pid_file, window="1920,1080") as e:
        handles_follow_the_frames(e)
        a_light_off_the_canvas(e)
        check(e.running(), "the editor is still running")
    print("PASS")


if __name__ == "__main__":
    main()
