"""Open a report in a real headless browser (Debian's chromium, driven by Playwright; no browser download)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

CHROMIUM = "/usr/bin/chromium"


@dataclass
class Opened:
    console: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    figures: list[tuple[str, float, float]] = field(default_factory=list)
    printed_pdf_bytes: int = 0


def open_report(html: Path, screenshot: Path) -> Opened:
    """Load the page from file://, record console messages and page errors, each section's kind, each figure's
    drawn size, a full-page screenshot, and a print to PDF (the page must print)."""
    from playwright.sync_api import sync_playwright

    seen = Opened()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: seen.console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: seen.console.append(f"pageerror: {e}"))
            page.on("requestfailed", lambda r: seen.console.append(f"requestfailed: {r.url}"))
            page.goto(html.resolve().as_uri(), wait_until="load")
            seen.sections = [s.get_attribute("data-kind") or "" for s in page.locator("section.result").all()]
            for fig in page.locator("figure.chart").all():
                box = fig.locator("svg").bounding_box()
                seen.figures.append((fig.get_attribute("data-name") or "", box["width"] if box else 0.0,
                                     box["height"] if box else 0.0))
            page.screenshot(path=str(screenshot), full_page=True)
            seen.printed_pdf_bytes = len(page.pdf(format="A4"))
        finally:
            browser.close()
    return seen


def pixel_variance(png: Path) -> float:
    """Variance of the grey levels: a blank (one-colour) page is 0."""
    img = Image.open(png).convert("L")
    hist = img.histogram()
    n = sum(hist)
    mean = sum(i * c for i, c in enumerate(hist)) / n
    return sum(c * (i - mean) ** 2 for i, c in enumerate(hist)) / n
