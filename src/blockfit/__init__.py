"""blockfit: explain, plan, build, verify and diagnose database storage on cloud block volumes."""

__version__ = "0.1.0"
