"""Planning: the Plan, a pure value of Changes, its rendering into new file contents and a
masked diff (`changes`, with the text editors `envedit` and `yamledit`), the safe repairs
(`repairs`) and a face's answers (`answers`).  Nothing here writes.
"""
