"""The LLM roles, one module each: a system prompt (``../prompts/<role>.md``), the inputs the
role is shown, and the parse of its reply (``llm.protocol``).  ``common.ask`` makes the call,
re-asks after a reply that does not parse when the role allows, and records each failure in
the call's transcript."""
