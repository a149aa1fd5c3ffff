"""What the editor's browser tests share: checks, waits with deadlines, and an editor
(`mercurial edit` on a scene in a temporary folder) with headless Chromium on its page,
both ended whatever happens."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service


def fail(message):
    print("FAIL: " + message, file=sys.stderr)
    raise SystemExit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print("ok: " + message)


def png_scanlines(png):
    """The header and the inflated image data of a PNG (both encoders here write filter 0 rows)."""
    import struct
    import zlib
    chunks, i = {}, 8
    while i + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[i:i + 8])
        chunks.setdefault(kind, b"")
        chunks[kind] += png[i + 8:i + 8 + length]
        i += 12 + length
    return chunks.get(b"IHDR"), zlib.decompress(chunks.get(b"IDAT", b""))


def png_rgba(png):
    """The pixels of an 8-bit RGBA PNG (colour type 6, not interlaced) as bytes, its rows unfiltered."""
    import struct
    header, data = png_scanlines(png)
    width, height, depth, kind, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if (depth, kind, interlace) != (8, 6, 0):
        fail("png_rgba reads 8-bit RGBA PNGs only, not depth %d colour type %d" % (depth, kind))
    stride, out, previous = width * 4, bytearray(), bytearray(width * 4)
    for y in range(height):
        kind, row = data[y * (stride + 1)], bytearray(data[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = row[i - 4] if i >= 4 else 0
            b, c = previous[i], previous[i - 4] if i >= 4 else 0
            if kind == 1: row[i] = (row[i] + a) & 255
            elif kind == 2: row[i] = (row[i] + b) & 255
            elif kind == 3: row[i] = (row[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += row
        previous = row
    return bytes(out)


def pixels_differing_from_server(driver):
    """How many pixels of the frame the page holds (built from deltas) differ from the server's frame (-1: another size)."""
    return driver.execute_async_script('''
        const done = arguments[arguments.length - 1];
        const token = new URLSearchParams(location.search).get('token');
        fetch('/frame.rgba?token=' + token, { cache: 'no-store' }).then((r) => r.arrayBuffer()).then((bytes) => {
          const server = new Uint32Array(bytes), page = window.__framePixels();
          let differ = server.length === page.length ? 0 : -1;
          if (differ === 0) for (let i = 0; i < server.length; i++) if (server[i] !== page[i]) differ++;
          done(differ);
        }).catch((e) => done(String(e)));
    ''')


def retype(field, text):
    """Replaces a field's text as a user does: click, select all, type. (WebDriver's clear()
    empties and leaves the field, which sends an empty value, and a refresh arriving then puts
    the shown value back before the typing starts.)"""
    from selenium.webdriver.common.keys import Keys
    field.click()
    field.send_keys(Keys.CONTROL, "a")
    field.send_keys(text)


def reveal(driver, element):
    """Opens the closed groups around `element` by clicking their summaries, outermost first."""
    closed = driver.execute_script("""
        const out = [];
        for (let d = arguments[0].closest('details'); d; d = d.parentElement.closest('details')) if (!d.open) out.unshift(d);
        return out.map((d) => d.querySelector(':scope > summary'));""", element)
    for summary in closed:
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
        summary.click()
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    return element


def arguments(screenshot):
    """A browser test's arguments: the binary, the pid file for the suite, and where to put a screenshot (`screenshot` says of what)."""
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--pid-file")
    parser.add_argument("--screenshot", help="a PNG of the page " + screenshot)
    return parser.parse_args()


def idle(driver):
    """Waits for the page's changes, undos and refreshes to be done."""
    wait_for(lambda: not driver.execute_script("return window.__busy()"), "the page to finish its changes", 60)


def find(driver, css):
    """The element at `css` once the page is idle, its groups opened and scrolled to."""
    from selenium.webdriver.common.by import By
    idle(driver)
    return reveal(driver, driver.find_element(By.CSS_SELECTOR, css))


def wait_for(predicate, what, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
        except StaleElementReferenceException:   # the page made the element again: look again
            value = None
        if value:
            return value
        time.sleep(0.05)
    fail("timed out waiting for " + what)


class Editor:
    """`with Editor(binary, scene_json, pid_file) as e:` starts the editor on the scene and a
    headless Chromium on its page (`e.driver`, `e.api(path)`, `e.work`, `e.scene`); on leaving,
    both end and the folder is removed (files other than `keep` left there fail the test)."""

    def __init__(self, binary, scene, pid_file=None, keep=(), window="1920,1200"):
        self.binary, self.pid_file, self.keep, self.window = binary, pid_file, set(keep) | {"scene.json"}, window
        self.work = tempfile.mkdtemp(prefix="mercurial-edit-test-")
        self.scene = os.path.join(self.work, "scene.json")
        if scene is not None:   # None: a new scene, no file yet
            with open(self.scene, "w") as f:
                f.write(scene if isinstance(scene, str) else json.dumps(scene))
        self.editor = self.driver = None
        self.pages = []

    def __enter__(self):
        try:
            return self._start()
        except BaseException:   # a failed start (no URL line, no first frame) ends what it began
            self.__exit__(*sys.exc_info())
            raise

    def _start(self):
        self.editor = subprocess.Popen([self.binary, "edit", self.scene, "--port", "0"], stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True, start_new_session=True)
        if self.pid_file:
            with open(self.pid_file, "w") as f:
                f.write(str(self.editor.pid))
        line = self.editor.stdout.readline()
        if "http://" not in line:
            fail("no URL line from mercurial edit: %r %s" % (line, self.editor.stderr.read() if self.editor.poll() is not None else ""))
        self.url = line.split()[-1]
        self.base, self.token = self.url.split("/?token=")
        print("editor at " + self.base)
        self.driver = self.open_page()
        return self

    def open_page(self):
        """A headless Chromium on the editor's page, its first frame shown (a second one: another tab); ended on leaving."""
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=" + self.window,
                     "--disable-gpu", "--hide-scrollbars"):
            options.add_argument(flag)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.pages.append(driver)
        driver.set_script_timeout(60)
        driver.get(self.url)
        wait_for(lambda: driver.execute_script("return window.__shown !== null"), "the first frame", 60)
        return driver

    def api(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        headers = {"X-Mercurial-Token": self.token}
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.base + path, data=data, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.read()

    def state(self):
        return json.loads(self.api("/api/state"))

    def values(self):
        state = self.state()
        return {r["key"]: r["value"] for r in state["parameters"] + state.get("nested", [])}

    def running(self):
        return self.editor.poll() is None

    def __exit__(self, *exc):
        if self.driver is not None:
            if exc[0] is not None and os.environ.get("EDITOR_FAILURE_SHOT"):
                self.driver.save_screenshot(os.environ["EDITOR_FAILURE_SHOT"])
                print("status: %r" % self.driver.find_element("id", "status").text)
        for page in self.pages:
            page.quit()
        if self.editor is not None and self.editor.poll() is None:
            os.killpg(self.editor.pid, signal.SIGINT)
            try:
                self.editor.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.editor.pid, signal.SIGKILL)
                self.editor.wait()
        leftovers = [n for n in os.listdir(self.work) if n not in self.keep]
        shutil.rmtree(self.work, ignore_errors=True)
        if leftovers and exc[0] is None:
            fail("files left behind: %s" % leftovers)
        return False
