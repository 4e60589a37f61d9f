"""TensorBoard in a real browser: a finished tiny run is served by `tensorboard --logdir` on 127.0.0.1, its images
dashboard is loaded in headless Chromium (Debian's chromium + chromium-driver, installed by `make test`), and the
attention maps must be served by TensorBoard's HTTP API and rendered in the page. The screenshot is kept as
artifacts/tensorboard_images.png."""
from __future__ import annotations

import base64
import io
import json
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1000")
# Every <img> of the page, shadow roots included (TensorBoard's dashboards are web components).
FIND_IMAGES = """
const found = [];
function walk(root) {
  root.querySelectorAll('*').forEach(el => {
    if (el.tagName === 'IMG') found.push([el.src, el.naturalWidth, el.naturalHeight, el.complete]);
    if (el.shadowRoot) walk(el.shadowRoot);
  });
}
walk(document);
return found;
"""

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


def png_size(data: bytes) -> tuple[int, int]:
    from PIL import Image

    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:16]
    return Image.open(io.BytesIO(data)).size


def tag_of_image_url(url: str) -> str:
    """TensorBoard's individualImage URLs carry the run, tag, step and index as base64 JSON in blob_key."""
    key = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["blob_key"][0]
    return json.loads(base64.urlsafe_b64decode(key + "=" * (-len(key) % 4)))[3]


def attention_tags(tb_dir: Path) -> list[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(tb_dir), size_guidance={"images": 1})
    events.Reload()
    return [t for t in events.Tags()["images"] if t.startswith("attention/")]


def log_fallback_attention(run_dir: Path) -> None:
    """Only while the length report (issue 4) logs no attention maps: the head-averaged cross-attention of the last
    layer on a probe sentence, as a grey-scale image."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from translate.assembly.trained import load_model

    loaded = load_model(run_dir / "best.pt")
    tok = loaded.tokenizer
    src = torch.tensor([tok.encode(["Je pars en vacances pour quelques jours."])[0] + [tok.eos_id]])
    tgt_in = torch.tensor([[tok.bos_id] + tok.encode(["I'm taking a couple of days off."])[0]])
    with torch.no_grad():
        cross = loaded.model.decode(tgt_in, loaded.model.encode(src), need_weights=True).cross_weights[-1]
    picture = cross.mean(dim=1)                       # (1, Tq, Tk): one grey channel
    picture = picture / picture.max()
    picture = picture.repeat_interleave(16, dim=1).repeat_interleave(16, dim=2)
    with SummaryWriter(str(run_dir / "tb")) as writer:
        writer.add_image("attention/cross/fallback", picture, loaded.step, dataformats="CHW")


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory, cache_dir) -> Path:
    from conftest import TINY_RUN, make_config
    from translate.cli.train import run

    run_dir = tmp_path_factory.mktemp("tb_run")
    run(make_config(*TINY_RUN, f"data.cache_dir={cache_dir}"), run_dir)
    if not attention_tags(run_dir / "tb"):
        log_fallback_attention(run_dir)
    return run_dir


@pytest.fixture
def tensorboard(finished_run):
    port = free_port()
    command = [sys.executable, "-m", "tensorboard.main", "--logdir", str(finished_run), "--host", "127.0.0.1",
               "--port", str(port), "--load_fast=false", "--reload_interval=1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    try:
        while True:
            assert process.poll() is None, process.stderr.read().decode(errors="replace")[-2000:]
            try:
                if get_json(f"{base}/data/plugin/images/tags"):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "TensorBoard did not serve the run's images within 90 s"
            time.sleep(0.5)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


@pytest.fixture
def chromium(tmp_path, monkeypatch):
    assert Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists(), (
        "headless Chromium is missing: `make browser` installs the Debian packages chromium and chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    monkeypatch.setenv("SE_OFFLINE", "true")  # never let Selenium Manager look for drivers online
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS + (f"--user-data-dir={tmp_path / 'chromium-profile'}",):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def test_attention_maps_are_served_and_rendered_in_chromium(finished_run, tensorboard, chromium):
    # 1. served: the HTTP data API lists the attention tags and returns each as a PNG
    tags = get_json(f"{tensorboard}/data/plugin/images/tags")
    (run, run_tags), = tags.items()
    served = sorted(t for t in run_tags if t.startswith("attention/"))
    assert served == sorted(attention_tags(finished_run / "tb")) and served
    sizes = {}
    for tag in served:
        query = urllib.parse.urlencode({"run": run, "tag": tag})
        entries = get_json(f"{tensorboard}/data/plugin/images/images?{query}")
        with urllib.request.urlopen(f"{tensorboard}/data/plugin/images/individualImage?{entries[-1]['query']}",
                                    timeout=10) as response:
            sizes[tag] = png_size(response.read())
        assert min(sizes[tag]) > 8

    # 2. rendered: the images dashboard shows them as decoded <img> elements of the same size
    chromium.get(f"{tensorboard}/#images")
    deadline, rendered = time.monotonic() + 60, []
    while not rendered and time.monotonic() < deadline:
        time.sleep(1)
        rendered = [(tag_of_image_url(src), (w, h)) for src, w, h, complete in chromium.execute_script(FIND_IMAGES)
                    if "individualImage" in src and complete and w > 0]
        rendered = [(tag, size) for tag, size in rendered if tag in sizes]
    ARTIFACTS.mkdir(exist_ok=True)
    screenshot = ARTIFACTS / "tensorboard_images.png"
    assert chromium.save_screenshot(str(screenshot))
    assert rendered, f"no attention map rendered in the images dashboard; page title {chromium.title!r}"
    for tag, size in rendered:
        assert size == sizes[tag], (tag, size, sizes[tag])
    width, height = png_size(screenshot.read_bytes())
    assert width == 1400 and height > 500
