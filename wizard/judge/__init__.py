"""Judging: Snapshot → what Hermes builds → Findings → a report (`engine`); the check registry
(`checks`), where a value came from (`provenance`), the text report (`report`), and what a
report may show of a secret (`masking`).
"""
