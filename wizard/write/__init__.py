"""Writing: `apply` (the only code that changes a home), its backups and journal (`backups`),
and `undo`.
"""
