"""Helpers the tests share: beds, CLI runners, file writers (imported as support.NAME)."""
