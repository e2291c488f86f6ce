"""HTTP API routers, one per concern, mounted under /api/v1."""
