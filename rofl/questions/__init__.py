"""The questions: each a function from loaded facts and typed options to a frozen answer value.

A question imports only the kernel, the scanner and the loading room; it never prints, reads click options
or picks an exit code.  The commands (``rofl/commands``) render its answer and turn it into an exit code;
the servers serialise the same answer (``answer.answer_json``).
"""
