#!/usr/bin/env python3
"""Issue 33's latency table, measured in the page: input event → the frame showing it on screen.

For each control, in headless Chromium at 1920×1080 on the editor of MERCURIAL_BINARY (give
a release build), moves the control's slider as a user does, by `input` events, and reads
the page's own measure (`window.__latencies`: from an input event to the preview showing it):
  single  one change, then a pause until the page is idle, N times
  drag    an input every 16 ms (a pointer's rate), N in a row; the page sends one batch at a
          time, the newest value waiting (so a drag's latency counts the wait for the frame before)
The controls and scenes are the issue's: light 1's hue, shininess and radius on a 1920×1080
two-line title; the first layer's size in examples/lower-third.json (its layer selected in the panel).

Usage: editor-latency-figures.py MERCURIAL_BINARY [--moves 30]
Prints a line per control and mode: median and p90 in ms. Every wait has a deadline.
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from editor_browser import Editor, idle, wait_for  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def p90(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def slide(driver, key, moves, drag):
    """Moves KEY's slider MOVES times; returns the page's latencies for them."""
    driver.execute_script("window.__latencies = []")
    for i in range(moves):
        driver.execute_script("""
            const slider = document.querySelector(`.row[data-key="${arguments[0]}"] input[type=range]`);
            const span = Number(slider.max) - Number(slider.min);
            // Back and forth over the middle half of the slider: every value differs from the last.
            const k = arguments[1] % 20, at = k < 10 ? k : 20 - k;
            slider.value = String(Number(slider.min) + span * (0.3 + 0.04 * at) + Number(slider.step || 0) * (arguments[1] % 2));
            slider.dispatchEvent(new Event('input', { bubbles: true }));""", key, i)
        if drag:
            time.sleep(0.016)
        else:
            idle(driver)
            time.sleep(0.1)
    idle(driver)
    return driver.execute_script("return window.__latencies.slice()")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--moves", type=int, default=30)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    rows = []
    title = {"text": "Flex Monkey\nMercurial Text", "width": 1920, "height": 1080, "radius": 6}
    with Editor(binary, title, window="1920,1080") as e:
        for key in ("light1.hue", "shininess", "radius"):
            for drag in (False, True):
                rows.append((key, drag, slide(e.driver, key, args.moves, drag)))
    lower_third = json.load(open(os.path.join(ROOT, "examples/lower-third.json")))
    with Editor(binary, lower_third, window="1920,1080") as e:
        e.driver.execute_script("window.__selectLayer(0)")
        wait_for(lambda: e.driver.execute_script("return !window.__busy() && document.querySelector('#layers [data-layer=\"0\"].selected') !== null"),
                 "the first layer selected", 30)
        for drag in (False, True):
            rows.append(("layers[0].size (lower third)", drag, slide(e.driver, "size", args.moves, drag)))
    for key, drag, values in rows:
        if not values:
            print("%-30s %-6s no frame measured" % (key, "drag" if drag else "single"))
            continue
        print("%-30s %-6s median %6.1f ms  p90 %6.1f ms  (%d frames)" % (
            key, "drag" if drag else "single", statistics.median(values), p90(values), len(values)))


if __name__ == "__main__":
    main()
