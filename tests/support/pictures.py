"""What a picture a run took shows in a region: painted over in the mask colour (``painted``), or
something readable, text (``has_detail``). A region is a ``Box`` in CSS pixels of a page laid out
at ``VIEWPORT``, scaled to the picture's width; the pictures are decoded with Pillow."""

from __future__ import annotations

import io

from PIL import Image

from pytest_reuseit.browser.masking import SECRET_COLOR

VIEWPORT = {"width": 1280, "height": 720}  # the page's size when its boxes are measured

Box = tuple[float, float, float, float]  # x, y, width, height in CSS pixels


def _pixels(image: bytes, box: Box, inset: int = 3) -> list[tuple[int, int, int]]:
    """The pixels inside ``box`` (CSS pixels, scaled to the picture), a few pixels in from its edges
    (JPEG blurs edges)."""
    img = Image.open(io.BytesIO(image)).convert("RGB")
    scale = img.width / VIEWPORT["width"]
    x, y, w, h = (v * scale for v in box)
    region = img.crop((int(x) + inset, int(y) + inset, int(x + w) - inset, int(y + h) - inset))
    assert region.width > 4 and region.height > 4, box
    raw = region.tobytes()
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


def painted(image: bytes, box: Box, color: str = SECRET_COLOR, tolerance: int = 40) -> bool:
    """True when every pixel of the region is the mask colour (give or take JPEG noise)."""
    target = tuple(int(color[i : i + 2], 16) for i in (1, 3, 5))
    return all(max(abs(p[c] - target[c]) for c in range(3)) <= tolerance for p in _pixels(image, box))


def has_detail(image: bytes, box: Box) -> bool:
    """True when the region shows something (text): dark and light pixels side by side."""
    lum = [sum(p) / 3 for p in _pixels(image, box, inset=2)]
    return max(lum) - min(lum) > 120
