/**
 * A configuration that cannot be used as given: bad input (the CLI exits 2), not a failure at run
 * time. Apart from config.ts so that the CLI can tell it apart without loading the config schema.
 */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}
