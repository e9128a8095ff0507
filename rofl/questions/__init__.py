"""The questions: each a function from typed options and a loading source to a frozen answer value.

A question loads through the ``Source`` it is given (``rofl.loading.source``); it never prints or reads click
options, and its answer says its exit status (``status()``).  The commands (``rofl/commands``) render the answer
and exit with that status; the servers serialise the same answer (``answer.answer_json``).
"""
