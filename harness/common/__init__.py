"""What every shell of the kit uses: where the data lives, the harness's errors, JSON Schema
validation, safe YAML and the one console output path."""
