"""`blockfit bench`: a real PostgreSQL decides between layouts (OLTP, DSS with temp spills, bulk load).

One module, one job: cluster (throwaway server), memcg (memory bound), oltp / dss / load (workloads),
evidence (devices, database counters, the binding resource), stats (CI and sequential stopping),
profiles (sizes), runner (`run_bench`).
"""
