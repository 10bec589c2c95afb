"""The use cases, each written once below the faces: `setup` and `doctor` (wizard/cases/fixing.py).

A face (the headless doctor, the plain prompts, an answers file or flags, the TUI) collects choices and words the
result; the sequence — judge, plan, preview, apply, judge again, the exit code — lives here and nowhere else.
"""
