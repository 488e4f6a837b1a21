#!/usr/bin/env python3
"""Opens napiscope's HTML report of a trace in headless Chromium and checks it as a reader would.

Writes `report --format html` for TRACE (or with --check, `check -f html` with the given
thresholds, so that a quiet trace gets findings to draw), loads the page through the DevTools protocol over a
pipe (--remote-debugging-pipe: no port, no network), and fails when:
  - the page fetched anything but itself (every request is recorded by the Network domain),
  - a console error, a failed Content-Security-Policy check or a script exception occurred,
  - a finding of the JSON output is missing, or lacks its timeline SVG with data,
  - a section is missing, or a chart has no data (histogram bars, one bar per CPU, ...),
  - a chart's or timeline's text runs past its SVG's edge (cut off where the picture ends),
  - the page is bigger than --max-bytes, or the screenshot is blank.
Takes a PNG screenshot of the top of the page. Exit 77 (skipped) without a Chromium.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

SECTIONS = ["findings", "softirq-waits", "wake-latency", "cpu-time", "activations", "napi",
            "net-path", "chains", "header"]

# Runs in the page: what a reader would look for, as counts the test compares.
DOM_PROBE = r"""
(() => {
  const q = (root, sel) => Array.from(root.querySelectorAll(sel));
  const traces = q(document, 'section.trace');
  const out = {sections: {}, findings: [], charts: [], text: document.body.innerText.length,
               height: document.documentElement.scrollHeight, traces: traces.length};
  for (const name of %s) {
    const heights = traces.map(t => { const s = t.querySelector('section.' + name);
                                      return s ? s.getBoundingClientRect().height : -1; });
    out.sections[name] = heights.length ? Math.min(...heights) : -1;
  }
  for (const f of q(document, 'article.finding')) {
    const svg = f.querySelector('svg.timeline');
    out.findings.push({rule: f.dataset.rule,
      sentence: (f.querySelector('.sentence') || {}).textContent || '',
      svg: !!svg, svg_width: svg ? svg.getBoundingClientRect().width : 0,
      data_rects: svg ? q(svg, 'rect > title').length : 0,
      elements: svg ? q(svg, '*').length : 0});
  }
  for (const c of q(document, 'svg.chart')) {
    let data = q(c, 'rect').filter(r => r.getAttribute('width') > 0).length;
    if (c.classList.contains('histogram')) data = q(c, 'rect.bar').length;
    if (c.classList.contains('cpu-bars')) {
      const bars = q(c, 'g.cpu');
      data = bars.filter(g => g.querySelector('rect')).length === bars.length ? bars.length : 0;
      if (bars.length !== Number(c.dataset.cpus)) data = 0;
    }
    out.charts.push({kind: c.getAttribute('class'), data: data,
                     width: c.getBoundingClientRect().width});
  }
  // Text that runs out of its picture is cut off where the SVG ends: none may.
  out.clipped = [];
  for (const svg of q(document, 'svg')) {
    const box = svg.viewBox.baseVal;
    if (!box || box.width === 0) continue;
    for (const t of q(svg, 'text')) {
      const b = t.getBBox();
      if (b.width > 0 && (b.x < box.x - 0.5 || b.x + b.width > box.x + box.width + 0.5)) {
        out.clipped.push(`${svg.getAttribute('class')}: '${t.textContent}' spans ` +
                         `${b.x.toFixed(0)}..${(b.x + b.width).toFixed(0)} of ${box.width}`);
      }
    }
  }
  out.sorting = q(document, 'th[title=sort]').length;
  out.analyses = q(document, 'table.analyses tr[data-analysis]').length;
  out.external = q(document, '[src],[href]').map(e => e.getAttribute('src') ||
      e.getAttribute('href')).filter(u => !u.startsWith('#'));
  return JSON.stringify(out);
})()
""" % json.dumps(SECTIONS)


class Browser:
    """Chromium driven over --remote-debugging-pipe (fd 3 commands in, fd 4 replies out)."""

    def __init__(self, chromium, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-extensions", "--hide-scrollbars", "--remote-debugging-pipe",
                 "--user-data-dir=" + profile, "about:blank"]

        def child_fds():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        self.proc = subprocess.Popen([chromium] + flags, pass_fds=(3, 4), preexec_fn=child_fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            reply = self.read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)
        raise RuntimeError(f"{method}: no reply in {timeout} s")

    def read(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def wait_for(self, method, timeout=60):
        deadline = time.time() + timeout
        for event in self.events:
            if event.get("method") == method:
                return event
        while time.time() < deadline:
            event = self.read()
            self.events.append(event)
            if event.get("method") == method:
                return event
        raise RuntimeError(f"no {method} in {timeout} s")

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def png_is_blank(data):
    """True when every pixel of the PNG has the same colour (or the file is not a PNG)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return True
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width = struct.unpack(">I", body[:4])[0]
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = 1 + width * 4 if len(raw) % (1 + width * 4) == 0 else 1 + width * 3
    rows = [raw[i + 1:i + stride] for i in range(0, len(raw), stride)]
    # Filtered rows: a uniform image has identical unfiltered rows; compare a sample of the
    # distinct byte values instead of unfiltering.
    distinct = set()
    for row in rows[:: max(1, len(rows) // 200)]:
        distinct.update(row[:: 7])
        if len(distinct) > 16:
            return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--napiscope", required=True)
    parser.add_argument("--chromium", default="")
    parser.add_argument("--trace", required=True)
    parser.add_argument("--out", required=True, help="folder for the page and the screenshot")
    parser.add_argument("--name", required=True)
    parser.add_argument("--check", nargs="*", metavar="THRESHOLD",
                        help="render `check -f html` with these -t KEY=VALUE thresholds")
    parser.add_argument("--max-bytes", type=int, default=2 * 1024 * 1024)
    parser.add_argument("--screenshot-height", type=int, default=2200)
    args = parser.parse_args()

    chromium = args.chromium or shutil.which("chromium-headless-shell") or shutil.which("chromium")
    if not chromium or not os.path.exists(chromium):
        print("SKIP: no chromium-headless-shell or chromium installed")
        return 77
    os.makedirs(args.out, exist_ok=True)
    page = os.path.abspath(os.path.join(args.out, args.name + ".html"))
    if args.check is None:
        run = subprocess.run([args.napiscope, "report", "-q", "--format", "html", "-o", page,
                              args.trace], capture_output=True, text=True)
        report = subprocess.run([args.napiscope, "report", "-q", "--format", "json", args.trace],
                                capture_output=True, text=True)
        expected = json.loads(report.stdout)["findings"] if report.returncode in (0, 2) else None
    else:
        data = os.path.join(args.out, args.name + ".json")
        thresholds = [arg for t in args.check for arg in ("-t", t)]
        run = subprocess.run([args.napiscope, "check", "-q", "-f", "html", "-o", page, "-f",
                              "json", "-o", data] + thresholds + [args.trace],
                             capture_output=True, text=True)
        with open(data) as f:
            expected = [f for t in json.load(f)["traces"] for f in t["report"]["findings"]]
    if run.returncode not in (0, 2) or expected is None:
        print(f"FAIL: napiscope exited {run.returncode}: {run.stderr}")
        return 1
    report = {"findings": expected}
    failures = []
    size = os.path.getsize(page)
    print(f"{args.name}: {size} bytes, {len(report['findings'])} findings")
    if size > args.max_bytes:
        failures.append(f"page is {size} bytes, more than {args.max_bytes}")

    profile = tempfile.mkdtemp(prefix="napiscope-chromium-")
    browser = Browser(chromium, profile)
    try:
        url = "file://" + page

        def open_page(scripts):
            target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.send("Target.attachToTarget",
                                   {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                browser.send(domain + ".enable", session=session)
            browser.send("Emulation.setDeviceMetricsOverride",
                         {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False},
                         session=session)
            browser.send("Emulation.setScriptExecutionDisabled", {"value": not scripts},
                         session=session)
            browser.events = [e for e in browser.events if e.get("method") != "Page.loadEventFired"]
            browser.send("Page.navigate", {"url": url}, session=session)
            browser.wait_for("Page.loadEventFired")
            result = browser.send("Runtime.evaluate",
                                  {"expression": DOM_PROBE, "returnByValue": True},
                                  session=session)
            return session, json.loads(result["result"]["value"])

        # Without JavaScript first: the same findings, charts and sections must be there.
        _, static = open_page(scripts=False)
        session, dom = open_page(scripts=True)
        height = min(dom["height"], args.screenshot_height)
        shot = browser.send("Page.captureScreenshot",
                            {"format": "png", "captureBeyondViewport": True,
                             "clip": {"x": 0, "y": 0, "width": 1280, "height": height,
                                      "scale": 1}}, session=session)
        import base64
        png = base64.b64decode(shot["data"])
        with open(os.path.join(args.out, args.name + ".png"), "wb") as f:
            f.write(png)
        for event in browser.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Network.requestWillBeSent":
                requested = params["request"]["url"]
                if requested != url and not requested.startswith("data:"):
                    failures.append("fetched " + requested)
            elif method == "Runtime.exceptionThrown":
                failures.append("script exception: " + json.dumps(params)[:300])
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                failures.append("console error: " + json.dumps(params.get("args"))[:300])
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                failures.append("console error: " + params["entry"].get("text", "")[:300])
    finally:
        browser.close()
        shutil.rmtree(profile, ignore_errors=True)

    if png_is_blank(png):
        failures.append("the screenshot is blank")
    if static["sorting"] != 0 or dom["sorting"] == 0:
        failures.append("the sorting script did not run (or ran with scripts disabled)")
    for key in ("sections", "findings", "charts"):
        if static[key] != dom[key]:
            failures.append(f"without JavaScript the page's {key} differ")
    if dom["traces"] < 1:
        failures.append("no trace section")
    if dom["text"] < 500:
        failures.append(f"the page shows only {dom['text']} characters of text")
    for name, section_height in dom["sections"].items():
        if section_height <= 0:
            failures.append(f"section {name} is missing or empty")
    expected_rules = [f["rule"] for f in report["findings"]]
    shown_rules = [f["rule"] for f in dom["findings"]]
    if shown_rules != expected_rules:
        failures.append(f"findings shown {shown_rules} differ from the report's {expected_rules}")
    for i, finding in enumerate(dom["findings"]):
        if not finding["sentence"].strip():
            failures.append(f"finding {i} ({finding['rule']}) has no sentence")
        if finding["rule"] == "analysis-unavailable":  # about no time or CPU: no picture
            if finding["svg"]:
                failures.append(f"finding {i} ({finding['rule']}) has a timeline of nothing")
        elif not finding["svg"] or finding["svg_width"] < 100:
            failures.append(f"finding {i} ({finding['rule']}) has no visible timeline SVG")
        elif finding["data_rects"] == 0:
            failures.append(f"finding {i} ({finding['rule']}) timeline has no data")
    for chart in dom["charts"]:
        if chart["data"] == 0 or chart["width"] < 100:
            failures.append(f"chart {chart['kind']} has no data or is not visible")
    if not any("cpu-bars" in c["kind"] for c in dom["charts"]):
        failures.append("no CPU time chart")
    for clipped in dom["clipped"][:10]:
        failures.append("text cut off at its SVG's edge: " + clipped)
    if dom["analyses"] == 0:
        failures.append("the header lists no analyses")
    if dom["external"]:
        failures.append(f"references outside the page: {dom['external'][:5]}")
    biggest = max((f["elements"] for f in dom["findings"]), default=0)
    print(f"{args.name}: {len(dom['findings'])} findings drawn (largest timeline {biggest} "
          f"SVG elements), {len(dom['charts'])} charts, screenshot {len(png)} bytes")
    for failure in failures:
        print("FAIL: " + failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
