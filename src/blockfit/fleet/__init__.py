"""A fleet: every host's history from a Prometheus-API server, a plan per host, the fleet's totals."""
