"""A fleet: every host's I/O history reduced by a Prometheus-API server (`query`, over the client `promapi`), a
plan per host beside its layout now (`hosts`, with the `mapping` file), and the fleet's totals (`totals`); `run`
ties them together. Sits above `plan/` and calls only its public API."""
