"""Page families: one module per page, its cached calls, view helpers and the conditions its parameters show under."""
