"""Configuration: settings from the environment, topics and judgment from packaged TOML and workspace overrides."""
