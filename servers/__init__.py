"""The servers: the commands that exist, run as executions over HTTP (with a live event stream) and MCP."""
