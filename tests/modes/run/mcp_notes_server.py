"""A real stdio MCP server for the tests, written with the official SDK."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")


@server.tool()
def shout(text: str) -> str:
    """Shout the text back."""
    return text.upper() + "!"


if __name__ == "__main__":
    server.run()
