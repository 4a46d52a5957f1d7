"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe): no WebDriver, no
websocket library, only Debian's chromium and the standard library. Collects what a person would see as errors:
uncaught exceptions, console.error/warn calls and the browser's own error log entries (a failed load)."""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time


def chromium_path():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, width=1400, height=1000):
        path = chromium_path()
        if not path:
            raise RuntimeError("no chromium on PATH (scripts/setup.sh installs Debian's)")
        self._profile = tempfile.mkdtemp(prefix="ktune-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire():  # the protocol's descriptors are 3 (commands in) and 4 (answers out)
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self._process = subprocess.Popen(
            [path, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
             "--user-data-dir=" + self._profile, "--window-size=%d,%d" % (width, height), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4, to_browser_r, from_browser_w), preexec_fn=wire, close_fds=True)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events = []
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(domain + ".enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def _send(self, message):
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            if time.time() > deadline:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium ended")
            self._buffer += chunk
        text, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(text)

    def _call(self, method, params=None, session=None, timeout=30):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self._send(message)
        deadline = time.time() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise RuntimeError("%s: %s" % (method, answer["error"]))
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def call(self, method, params=None, timeout=30):
        return self._call(method, params, self._session, timeout)

    def open(self, url, timeout=30):
        """Loads url and waits for its load event."""
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        self.call("Page.navigate", {"url": url})
        deadline = time.time() + timeout
        while not any(e["method"] == "Page.loadEventFired" for e in self.events):
            self.events.append(self._read_message(deadline))

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError("in the page: %s" % result["exceptionDetails"])
        return result["result"].get("value")

    def pump(self, seconds):
        """Lets the page run for `seconds`, keeping the events it sends."""
        end = time.time() + seconds
        while time.time() < end:
            self.evaluate("1")
            time.sleep(0.05)

    def errors(self):
        found = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                found.append("exception: %s" % p["exceptionDetails"].get("exception", {}).get("description", p))
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                found.append("console.%s: %s" % (p["type"], [a.get("value", a.get("description")) for a in p["args"]]))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                found.append("log: %s %s" % (p["entry"].get("text"), p["entry"].get("url", "")))
        return found

    def screenshot(self, path):
        height = self.evaluate("document.documentElement.scrollHeight")
        shot = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                                    "clip": {"x": 0, "y": 0, "width": 1400, "height": height, "scale": 1}})
        with open(path, "wb") as out:
            out.write(base64.b64decode(shot["data"]))

    def close(self):
        try:
            self._call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            os.close(fd)
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
