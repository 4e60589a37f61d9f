"""Cross-attention pictures of a job, read back from its TensorBoard log (the length report logs them as
`attention/cross/<bucket or "fixed">/<probe>`): the last step of each, as PNG bytes."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CROSS = re.compile(r"^attention/cross/(?P<bucket>[^/]+)/(?P<probe>[^/]+)$")


@dataclass
class AttentionImage:
    tag: str
    bucket: str       # a length bucket such as "11-15", or "fixed" for the fixed probe sentences
    probe: str
    step: int
    png: bytes


def cross_attention_images(tb_dir: Path) -> list[AttentionImage]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    if not Path(tb_dir).is_dir():
        return []
    events = EventAccumulator(str(tb_dir), size_guidance={"images": 1})  # keep only the last of each tag
    events.Reload()
    images = []
    for tag in events.Tags()["images"]:
        match = CROSS.match(tag)
        if match:
            last = events.Images(tag)[-1]
            images.append(AttentionImage(tag, match["bucket"], match["probe"], last.step, last.encoded_image_string))
    return images


def bucket_low(bucket: str) -> int:
    """"16-20" -> 16, "21+" -> 21, "fixed" -> -1."""
    found = re.match(r"^(\d+)", bucket)
    return int(found.group(1)) if found else -1


def pick_examples(images: list[AttentionImage]) -> list[AttentionImage]:
    """The first fixed probe (the source notes' running example) and a probe of the longest bucket."""
    fixed = sorted((i for i in images if i.bucket == "fixed"), key=lambda i: i.probe)[:1]
    tested = sorted((i for i in images if i.bucket != "fixed"), key=lambda i: (-bucket_low(i.bucket), i.probe))[:1]
    return fixed + tested


def write_attention_images(tb_dir: Path, images: list[AttentionImage]) -> None:
    """A TensorBoard log holding only `images`, byte for byte (PNG bytes are not re-encoded), at their own steps and
    tags: what cross_attention_images reads back, without the rest of a run's log."""
    import struct

    from tensorboard.compat.proto.summary_pb2 import Summary
    from torch.utils.tensorboard.writer import FileWriter

    writer = FileWriter(str(tb_dir))
    for image in images:
        width, height = struct.unpack(">II", image.png[16:24])  # the PNG header's IHDR chunk
        picture = Summary.Image(height=height, width=width, colorspace=3, encoded_image_string=image.png)
        writer.add_summary(Summary(value=[Summary.Value(tag=image.tag, image=picture)]), image.step)
    writer.close()
