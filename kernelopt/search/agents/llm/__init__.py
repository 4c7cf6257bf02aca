"""The Messages-API client (client.py) and the reply protocol (protocol.py) of the LLM backend."""
