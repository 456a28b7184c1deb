"""What the payload builders share: the documents the fixtures cite."""

from __future__ import annotations

WARRANTY_URL = "https://shop.example/warranty"
WARRANTY_TEXT = "Every product carries a warranty of 24 months from delivery."
RETURNS_TEXT = "Returns are free within 30 days of delivery."
LINK = f"([shop.example]({WARRANTY_URL}))"
