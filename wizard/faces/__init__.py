"""The headless faces: the command line (`cli`), the headless doctor and undo (`doctor`), and
which Hermes a command judges for (`judging`).  The Textual face is the top-level `screens/`.
"""
