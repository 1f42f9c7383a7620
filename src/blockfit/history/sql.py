"""The SQL a DBA runs to export I/O history (`blockfit sql oracle|statspack|sqlserver`), read back by
history/oracle_spool.py and history/sqlserver.py.

Every data line starts with a marker (``BFIO,``, ``BFIO-HEADER,``, ``BFIO-SQLSERVER,``), so whatever SQL*Plus or
sqlcmd adds around it (banners, prompts, "rows selected") is ignored, and numbers are written with a '.' decimal
point whatever the session's NLS settings. The Oracle exports write *cumulative* counters per snapshot with the
instance's startup time: blockfit takes the differences itself, so a restart (a new startup time) is recognised
and a counter that goes down without one is refused, not turned into a negative rate.
"""

from __future__ import annotations

AWR_STATS = ("physical read total IO requests", "physical write total IO requests",
             "physical read total bytes", "physical write total bytes")
AWR_METRICS = ("Physical Read Total IO Requests Per Sec", "Physical Write Total IO Requests Per Sec",
               "Physical Read Total Bytes Per Sec", "Physical Write Total Bytes Per Sec")

_NUM = "to_char({x}, 'TM9', 'NLS_NUMERIC_CHARACTERS=''.,''')"
_TIME = "to_char({x}, 'YYYY-MM-DD\"T\"HH24:MI:SS')"


def _in_list(names: tuple[str, ...]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def _pivot(cte: str, table: str, alias: str, name: str, aggregate: str, value: str, names: tuple[str, ...]) -> str:
    """The CTE CTE over TABLE: per instance and snapshot, the four statistics NAMES (read and write requests, read
    and write bytes; their name in column NAME) as columns rr, wr, rb, wb, each the AGGREGATE of column VALUE."""
    columns = ",\n".join(f"         {aggregate}(decode({alias}.{name}, '{n}', {alias}.{value})) {column}"
                          for n, column in zip(names, ("rr", "wr", "rb", "wb"), strict=True))
    return (f"{cte} as (\n"
            f"  select {alias}.instance_number, {alias}.snap_id,\n"
            f"{columns}\n"
            f"    from {table} {alias}\n"
            f"   where {alias}.dbid = (select dbid from v$database)\n"
            f"     and {alias}.{name} in ({_in_list(names)})\n"
            f"     and {alias}.snap_id >= (select min(snap_id) from snaps)\n"
            f"   group by {alias}.instance_number, {alias}.snap_id)")


ORACLE_AWR = f"""\
-- blockfit I/O history export from AWR (format BFIO 1), for: blockfit plan --from io_history.csv
--
-- LICENCE: this script reads DBA_HIST_SNAPSHOT, DBA_HIST_SYSSTAT and DBA_HIST_SYSMETRIC_SUMMARY. Those AWR
-- views are part of the Oracle Diagnostics Pack: querying them needs that licence (Enterprise Edition plus
-- the Diagnostics Pack option). Without it, answer NO and use 'blockfit sql statspack' instead.
--
-- Run in SQL*Plus or SQLcl as a user with SELECT on those views (in a CDB: in CDB$ROOT), on any instance of
-- a RAC database (the history of every instance is exported):
--     sqlplus -s / as sysdba @io_history.sql
-- It spools io_history.csv in the current directory: per instance and AWR snapshot, the cumulative
-- 'physical read/write total IO requests' and 'physical read/write total bytes' (DBA_HIST_SYSSTAT) and the
-- busiest 60-second rate inside the snapshot of the same four statistics (MAXVAL in
-- DBA_HIST_SYSMETRIC_SUMMARY), for the days you name (default 30).

set echo off feedback off heading off pagesize 0 linesize 500 trimspool on verify off tab off
accept diag_pack_licensed char default 'NO' prompt 'Licensed for the Oracle Diagnostics Pack? [NO|YES] '
accept days number default 30 prompt 'Days of history to export [30]: '
whenever sqlerror exit failure
begin
  if upper(trim('&&diag_pack_licensed')) <> 'YES' then
    raise_application_error(-20001, 'No Diagnostics Pack licence: not reading AWR. Use blockfit sql statspack.');
  end if;
end;
/
spool io_history.csv
select 'BFIO-HEADER,1,awr,' || d.name || ',' || d.dbid || ',' ||
       (select count(distinct s.instance_number) from dba_hist_snapshot s
         where s.dbid = d.dbid and s.end_interval_time > systimestamp - &&days)
  from v$database d;
with snaps as (
  select s.instance_number, s.snap_id, s.begin_interval_time b, s.end_interval_time e, s.startup_time st
    from dba_hist_snapshot s
   where s.dbid = (select dbid from v$database)
     and s.end_interval_time > systimestamp - &&days),
{_pivot("stat", "dba_hist_sysstat", "t", "stat_name", "sum", "value", AWR_STATS)},
{_pivot("met", "dba_hist_sysmetric_summary", "m", "metric_name", "max", "maxval", AWR_METRICS)}
select 'BFIO,' || s.instance_number || ',' || s.snap_id || ',' || {_TIME.format(x="s.b")} || ',' ||
       {_TIME.format(x="s.e")} || ',' || {_TIME.format(x="s.st")} || ',' ||
       {_NUM.format(x="t.rr")} || ',' || {_NUM.format(x="t.wr")} || ',' || {_NUM.format(x="t.rb")} || ',' ||
       {_NUM.format(x="t.wb")} || ',' || {_NUM.format(x="m.rr")} || ',' || {_NUM.format(x="m.wr")} || ',' ||
       {_NUM.format(x="m.rb")} || ',' || {_NUM.format(x="m.wb")}
  from snaps s
  join stat t on t.instance_number = s.instance_number and t.snap_id = s.snap_id
  left join met m on m.instance_number = s.instance_number and m.snap_id = s.snap_id
 order by s.instance_number, s.snap_id;
spool off
prompt io_history.csv written: blockfit plan --from io_history.csv ...
"""

ORACLE_STATSPACK = f"""\
-- blockfit I/O history export from Statspack (format BFIO 1), for: blockfit plan --from io_history.csv
--
-- LICENCE: Statspack (the PERFSTAT schema, installed with spcreate.sql) needs no Diagnostics Pack licence.
-- It keeps no per-minute maxima, so the targets rest on each snapshot's average (see --peak-factor).
--
-- Run in SQL*Plus as PERFSTAT (or a user with SELECT on PERFSTAT.STATS$SNAPSHOT and STATS$SYSSTAT):
--     sqlplus -s perfstat @io_history_statspack.sql
-- It spools io_history.csv: per instance and Statspack snapshot, the cumulative 'physical read/write total
-- IO requests' and 'physical read/write total bytes' (11g and later), for the days you name (default 30).

set echo off feedback off heading off pagesize 0 linesize 500 trimspool on verify off tab off
accept days number default 30 prompt 'Days of history to export [30]: '
whenever sqlerror exit failure
spool io_history.csv
select 'BFIO-HEADER,1,statspack,' || d.name || ',' || d.dbid || ',' ||
       (select count(distinct s.instance_number) from perfstat.stats$snapshot s
         where s.dbid = d.dbid and s.snap_time > sysdate - &&days)
  from v$database d;
with snaps as (
  select s.instance_number, s.snap_id, s.snap_time e, s.startup_time st
    from perfstat.stats$snapshot s
   where s.dbid = (select dbid from v$database)
     and s.snap_time > sysdate - &&days),
{_pivot("stat", "perfstat.stats$sysstat", "t", "name", "sum", "value", AWR_STATS)}
select 'BFIO,' || s.instance_number || ',' || s.snap_id || ',,' || {_TIME.format(x="s.e")} || ',' ||
       {_TIME.format(x="s.st")} || ',' || {_NUM.format(x="t.rr")} || ',' || {_NUM.format(x="t.wr")} || ',' ||
       {_NUM.format(x="t.rb")} || ',' || {_NUM.format(x="t.wb")} || ',,,,'
  from snaps s
  join stat t on t.instance_number = s.instance_number and t.snap_id = s.snap_id
 order by s.instance_number, s.snap_id;
spool off
prompt io_history.csv written: blockfit plan --from io_history.csv ...
"""

SQLSERVER = """\
-- blockfit I/O history export from SQL Server (format BFIO-SQLSERVER 1), for: blockfit plan --from io_history.csv
--
-- LICENCE: sys.dm_io_virtual_file_stats is part of every SQL Server edition; no extra licence. It needs
-- VIEW SERVER STATE (VIEW SERVER PERFORMANCE STATE on SQL Server 2022).
--
-- One run = one snapshot of every database file's cumulative counters. Take one every 5 minutes (or as often
-- as you want the plan to see), appending to one file, e.g. from a shell:
--     while true; do sqlcmd -S SERVER -E -i io_snapshot.sql -h -1 -W -s "," >> io_history.csv; sleep 300; done
-- or from a SQL Agent job writing its output to the file. blockfit takes the differences between snapshots per
-- file and sums the files; a restart (a new sqlserver_start_time) starts the counters again and is recognised.
-- physical_name is last, so a comma inside it does not shift the other columns.

SET NOCOUNT ON;
SELECT 'BFIO-SQLSERVER' AS marker,
       CONVERT(varchar(33), SYSUTCDATETIME(), 126) AS sample_time_utc,
       CONVERT(varchar(33), DATEADD(minute, DATEDIFF(minute, GETDATE(), GETUTCDATE()), si.sqlserver_start_time),
               126) AS sqlserver_start_time_utc,
       DB_NAME(vfs.database_id) AS database_name,
       vfs.file_id,
       mf.type_desc,
       vfs.sample_ms,
       vfs.num_of_reads,
       vfs.num_of_bytes_read,
       vfs.num_of_writes,
       vfs.num_of_bytes_written,
       mf.physical_name
FROM sys.dm_io_virtual_file_stats(NULL, NULL) AS vfs
JOIN sys.master_files AS mf ON mf.database_id = vfs.database_id AND mf.file_id = vfs.file_id
CROSS JOIN sys.dm_os_sys_info AS si
ORDER BY vfs.database_id, vfs.file_id;
"""

SCRIPTS = {"oracle": ORACLE_AWR, "statspack": ORACLE_STATSPACK, "sqlserver": SQLSERVER}
