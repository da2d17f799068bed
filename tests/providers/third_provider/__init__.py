"""A third provider, from outside oraculum's source: its own web app (`webapp`, served by the
test), vocabulary, page scripts (`js/`), page view and driver (`driver`), and its registry entry
(`entry`).

Importing `entry` registers the provider. Every oraculum process sees it through the registry's
hook: ``ORACULUM_PROVIDER_MODULES=providers.third_provider.entry`` (with the tests folder on
``PYTHONPATH``) makes the CLI, the MCP server and each detached worker import it. The web app's
URL is the entry's default chat URL, from ``THIRD_PROVIDER_URL`` (a provider with settings names
its config keys instead).
"""
