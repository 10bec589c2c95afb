"""Answers files: a declared configuration applied without prompts (`setup --answers FILE`).

`tree.read_tree` reads the YAML (hostile content refused, every value located by file and line),
`schema.declare` checks it and resolves secrets from the environment, `session_io.into_session`
answers a Session with it (the same Session → Plan → apply_plan path as every face), and
`session_io.render_answers` writes a session's answers back out in the same schema
(wizard/write/saved_answers.py saves it to a file).  Nothing in this package writes.
"""
