"""gradstep's server side: tracing, sandbox, HTTP API and command line."""
