"""One palette for every section of the report: the thing to look at, the reference it is compared with, the
rest greyed."""

ACCENT = "#c0392b"
MAIN = "#1f5f99"
SECOND = "#e69f00"
GREY = "#9a9a9a"
LIGHT = "#d5d5d5"
OK = "#2e8b57"
